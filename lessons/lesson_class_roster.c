/*
 * lesson_class_roster.c — the class list an instructor loads (`class roster
 * FILE.csv`): who the students are, so the gradebook's identity columns
 * (name, login, section, email) are the institution's, not the user names
 * students typed.
 */
#include "lessons/lesson_internal.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#define ROSTER_MAX_BYTES (16u << 20)

/* The column of `fields` whose header is one of names (case and spaces
 * ignored), or -1. */
static int column(const struct core_strlist *head, const char *const *names)
{
    for (size_t i = 0; i < head->n; i++) {
        char norm[64];
        size_t k = 0;
        for (const char *c = head->items[i]; *c && k + 1 < sizeof norm; c++)
            if (isalnum((unsigned char)*c))
                norm[k++] = (char)tolower((unsigned char)*c);
        norm[k] = '\0';
        for (size_t n = 0; names[n]; n++)
            if (strcmp(norm, names[n]) == 0)
                return (int)i;
    }
    return -1;
}

static char *cell(const struct core_strlist *row, int col)
{
    if (col < 0 || (size_t)col >= row->n || !row->items[col][0])
        return NULL;
    /* trimmed */
    const char *s = row->items[col];
    while (*s == ' ' || *s == '\t')
        s++;
    size_t n = strlen(s);
    while (n && (s[n - 1] == ' ' || s[n - 1] == '\t'))
        n--;
    return n ? core_xstrndup(s, n) : NULL;
}

int lesson_roster_load(struct db *cs, const char *path, struct core_strlist *warnings,
                       size_t *count, struct core_err *err)
{
    *count = 0;
    char *text = NULL;
    size_t len = 0;
    int rc = core_file_read(path, ROSTER_MAX_BYTES, &text, &len, err);
    if (rc != CORE_OK)
        return rc;
    const char *p = text, *end = text + len;
    struct core_strlist head, row;
    core_strlist_init(&head);
    core_strlist_init(&row);
    struct db_roster_entry *v = NULL;
    size_t n = 0, cap = 0;
    if (!core_csv_read(&p, end, true, &head)) {
        rc = core_err_set(err, CORE_ERR_INVALID, "%s: empty: a roster is CSV with a header row",
                          path);
        goto out;
    }
    static const char *const id_names[] = {"studentid", "sisuserid", "idnumber", "id", NULL};
    static const char *const name_names[] = {"name", "student", "fullname", NULL};
    static const char *const email_names[] = {"email", "emailaddress", NULL};
    static const char *const section_names[] = {"section", NULL};
    static const char *const login_names[] = {"login", "sisloginid", "username", NULL};
    int c_id = column(&head, id_names), c_name = column(&head, name_names),
        c_email = column(&head, email_names), c_section = column(&head, section_names),
        c_login = column(&head, login_names);
    if (c_id < 0) {
        rc = core_err_set(err, CORE_ERR_INVALID,
                          "%s:1: no student id column (name one student_id, SIS User ID or ID "
                          "number)",
                          path);
        goto out;
    }
    /* line: where the record starts (a quoted field may span lines) */
    int line = 1;
    for (const char *q = text; q < p; q++)
        line += *q == '\n';
    for (const char *start = p; core_csv_read(&p, end, false, &row); start = p) {
        int at = line;
        for (const char *q = start; q < p; q++)
            line += *q == '\n';
        if (row.n == 1 && !row.items[0][0])
            continue; /* a blank line */
        char *sid = cell(&row, c_id);
        if (!sid || !db_student_id_ok(sid)) {
            core_strlist_pushf(warnings, "%s:%d: no usable student id: row left out", path, at);
            free(sid);
            continue;
        }
        bool dup = false;
        for (size_t i = 0; i < n && !dup; i++)
            dup = strcmp(v[i].student_id, sid) == 0;
        if (dup) {
            core_strlist_pushf(warnings, "%s:%d: student id %s is listed twice: the first kept",
                               path, at, sid);
            free(sid);
            continue;
        }
        if (n == cap) {
            cap = cap ? 2 * cap : 64;
            v = core_xrealloc(v, cap * sizeof *v);
        }
        v[n++] = (struct db_roster_entry){sid, cell(&row, c_name), cell(&row, c_email),
                                          cell(&row, c_section), cell(&row, c_login)};
    }
    rc = db_roster_set(cs, v, n, err);
    if (rc == CORE_OK) {
        *count = n;
        struct db_class_student *st = NULL;
        size_t ns = 0;
        if (db_class_students(cs, &st, &ns, NULL) == CORE_OK)
            for (size_t i = 0; i < ns; i++) {
                bool on = false;
                for (size_t k = 0; st[i].student_id && k < n && !on; k++)
                    on = strcmp(v[k].student_id, st[i].student_id) == 0;
                if (!on)
                    core_strlist_pushf(warnings,
                                       "student %s (user %s) has a submission but is not on the "
                                       "roster",
                                       st[i].key, st[i].user);
            }
        db_class_students_free(st, ns);
    }
out:
    db_roster_free(v, n);
    core_strlist_fini(&head);
    core_strlist_fini(&row);
    free(text);
    return rc;
}
