/* db_digest.c — the content digest of a pack revision (see db.h). */
#include "db/db.h"

#include <stdlib.h>
#include <string.h>

static int by_path(const void *a, const void *b)
{
    const struct db_file_in *const *x = a, *const *y = b;
    return strcmp((*x)->path, (*y)->path);
}

void db_pack_digest(const struct db_file_in *files, size_t n, char out[65])
{
    const struct db_file_in **order = core_xcalloc(n ? n : 1, sizeof *order);
    for (size_t i = 0; i < n; i++)
        order[i] = &files[i];
    qsort(order, n, sizeof *order, by_path);
    struct core_sha256 s;
    core_sha256_init(&s);
    for (size_t i = 0; i < n; i++) {
        unsigned char len[8];
        uint64_t l = order[i]->len;
        for (int k = 0; k < 8; k++)
            len[k] = (unsigned char)(l >> (8 * k));
        core_sha256_update(&s, order[i]->path, strlen(order[i]->path) + 1);
        core_sha256_update(&s, len, sizeof len);
        core_sha256_update(&s, order[i]->data, order[i]->len);
    }
    core_sha256_final_hex(&s, out);
    free(order);
}
