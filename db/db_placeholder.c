/* placeholder so the module configures before its first source lands; removed later */
typedef int db_placeholder_unused;
