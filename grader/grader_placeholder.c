/* placeholder so the module configures before its first source lands; removed later */
typedef int grader_placeholder_unused;
