/* placeholder so the module configures before its first source lands; removed later */
typedef int lessons_placeholder_unused;
