/* test_core.c — core helpers: errors, buffers, JSON, SHA-256, FNV, files,
 * UTF-8. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <cmocka.h>

#include "core/core.h"

#include <math.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

static void test_err(void **state)
{
    (void)state;
    struct core_err e;
    assert_int_equal(core_err_set(&e, CORE_ERR_INVALID, "bad %d", 7), CORE_ERR_INVALID);
    assert_string_equal(e.msg, "bad 7");
    core_err_prefix(&e, "while %s", "loading");
    assert_string_equal(e.msg, "while loading: bad 7");
    assert_int_equal(e.code, CORE_ERR_INVALID);
    assert_int_equal(core_err_set(NULL, CORE_ERR_IO, "x"), CORE_ERR_IO);
    core_err_clear(&e);
    assert_int_equal(e.code, 0);
    assert_string_equal(core_code_name(CORE_ERR_STORE), "store");
}

/* Whether s is whole UTF-8 (every sequence complete). */
static bool utf8_whole(const char *s)
{
    for (size_t i = 0; s[i];) {
        uint32_t cp;
        size_t n = core_utf8_decode(s + i, &cp);
        if (n == 0)
            return false;
        i += n;
    }
    return true;
}

static bool ends_with(const char *s, const char *tail)
{
    size_t a = strlen(s), b = strlen(tail);
    return a >= b && strcmp(s + a - b, tail) == 0;
}

/* A path of about `len` bytes: HOME, folders, then data/pts.f32. */
static char *deep_path(const char *home, size_t len)
{
    struct core_buf b;
    core_buf_init(&b);
    core_buf_printf(&b, "%s/courses/ml-systems-performance-2026", home);
    while (b.len + 40 < len)
        core_buf_puts(&b, "/week-03-mapreduce-and-parameter-servers");
    core_buf_puts(&b, "/data/pts.f32");
    return core_buf_steal(&b);
}

/* Messages of any length keep their reason: a path of 3,000 bytes is
 * shortened in the middle (home as ~, first and last folders kept), the
 * words around it stay whole, also through prefixes; two long paths share
 * the cut; a message of many short words loses its middle, never its end;
 * a message that fits is left as it is, path and all. */
static void test_err_long(void **state)
{
    (void)state;
    const char *home = "/home/student";
    setenv("HOME", home, 1);
    struct core_err e;
    const char *reason = "is raw float32, which does not say its dimension: set d";

    char *fits = deep_path(home, 600); /* 600 bytes: fits, whole */
    core_err_set(&e, CORE_ERR_INVALID, "kmeans: file '%s' %s", fits, reason);
    assert_non_null(strstr(e.msg, fits));
    assert_true(ends_with(e.msg, reason));

    char *deep = deep_path(home, 3000);
    core_err_set(&e, CORE_ERR_INVALID, "kmeans: file '%s' %s", deep, reason);
    assert_true(strlen(e.msg) < sizeof e.msg);
    assert_true(ends_with(e.msg, reason));
    assert_true(strncmp(e.msg, "kmeans: file '~/", 16) == 0);
    assert_non_null(strstr(e.msg, "/\xe2\x80\xa6/")); /* "/…/" */
    assert_non_null(strstr(e.msg, "/data/pts.f32' is raw"));
    assert_true(utf8_whole(e.msg));

    core_err_prefix(&e, "importing '%s'", deep); /* a second long path in front */
    assert_true(strncmp(e.msg, "importing '~/", 13) == 0);
    assert_true(ends_with(e.msg, reason));
    assert_non_null(strstr(e.msg, "pts.f32': kmeans: file '~/"));
    assert_true(utf8_whole(e.msg));

    /* not under HOME: the root's folder, then the end */
    setenv("HOME", "/nowhere", 1);
    core_err_set(&e, CORE_ERR_IO, "cannot open %s: No such file or directory", deep);
    assert_true(strncmp(e.msg, "cannot open /", 13) == 0);
    assert_true(ends_with(e.msg, "/data/pts.f32: No such file or directory"));
    setenv("HOME", home, 1);

    /* one enormous name (no '/'): its start and end */
    char *name = core_xmalloc(5001);
    memset(name, 'n', 5000);
    name[5000] = '\0';
    core_err_set(&e, CORE_ERR_INVALID, "pack %s: no lesson file named in pack.lua", name);
    assert_true(ends_with(e.msg, ": no lesson file named in pack.lua"));
    assert_true(strncmp(e.msg, "pack nnnn", 9) == 0);

    /* many short words: the middle goes, the end stays */
    struct core_buf b;
    core_buf_init(&b);
    for (int i = 0; i < 400; i++)
        core_buf_puts(&b, "word ");
    core_err_set(&e, CORE_ERR_INVALID, "%sand this is the reason", b.data);
    assert_true(ends_with(e.msg, "and this is the reason"));
    assert_non_null(strstr(e.msg, "\xe2\x80\xa6"));
    assert_true(strlen(e.msg) == sizeof e.msg - 1);

    /* core_err_fit into a small buffer, over multi-byte characters */
    char small[64];
    const char *t = "the file /tmp/\xc3\xa9t\xc3\xa9/\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                    "\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9\xc3\xa9"
                    "\xc3\xa9.txt was bad";
    core_err_fit(t, strlen(t), small, sizeof small);
    assert_true(strlen(small) < sizeof small);
    assert_true(ends_with(small, ".txt was bad"));
    assert_true(strncmp(small, "the file ", 9) == 0);
    assert_true(utf8_whole(small));

    core_buf_fini(&b);
    free(name);
    free(deep);
    free(fits);
}

static void test_buf_and_list(void **state)
{
    (void)state;
    struct core_buf b;
    core_buf_init(&b);
    for (int i = 0; i < 1000; i++)
        core_buf_printf(&b, "%d,", i);
    assert_int_equal(strncmp(b.data, "0,1,2,", 6), 0);
    assert_int_equal(b.len, strlen(b.data));
    core_buf_reset(&b);
    assert_int_equal(b.len, 0);
    core_buf_puts(&b, "hi");
    char *s = core_buf_steal(&b);
    assert_string_equal(s, "hi");
    assert_null(b.data);
    free(s);
    s = core_buf_steal(&b);
    assert_string_equal(s, "");
    free(s);

    struct core_strlist l;
    core_strlist_init(&l);
    for (int i = 0; i < 20; i++)
        core_strlist_pushf(&l, "item %d", i);
    assert_int_equal(l.n, 20);
    assert_string_equal(l.items[19], "item 19");
    core_strlist_fini(&l);
    assert_int_equal(l.n, 0);
}

static void test_json(void **state)
{
    (void)state;
    struct core_buf b;
    core_buf_init(&b);
    struct core_json j;
    core_json_init(&j, &b);
    core_json_obj_begin(&j);
    core_json_key(&j, "q");
    core_json_str(&j, "a\"b\\c\n\x01");
    core_json_key(&j, "score");
    core_json_num(&j, 0.5);
    core_json_key(&j, "n");
    core_json_int(&j, -3);
    core_json_key(&j, "list");
    core_json_arr_begin(&j);
    core_json_bool(&j, true);
    core_json_null(&j);
    core_json_num(&j, 1.0 / 0.0);
    core_json_str(&j, "\xff ok");
    core_json_arr_end(&j);
    core_json_key(&j, "pi");
    core_json_num(&j, 3.141592653589793);
    core_json_obj_end(&j);
    assert_string_equal(b.data, "{\"q\":\"a\\\"b\\\\c\\n\\u0001\",\"score\":0.5,\"n\":-3,"
                                "\"list\":[true,null,null,\"\xEF\xBF\xBD ok\"],"
                                "\"pi\":3.141592653589793}");
    core_buf_fini(&b);
}

static void test_sha256(void **state)
{
    (void)state;
    char hex[65];
    core_sha256_hex("", 0, hex);
    assert_string_equal(hex, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
    core_sha256_hex("abc", 3, hex);
    assert_string_equal(hex, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    const char *two = "abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq";
    core_sha256_hex(two, strlen(two), hex);
    assert_string_equal(hex, "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1");
    /* Incremental in odd pieces equals one shot: a million 'a's. */
    struct core_sha256 s;
    core_sha256_init(&s);
    char as[997];
    memset(as, 'a', sizeof as);
    size_t left = 1000000;
    while (left) {
        size_t n = left < sizeof as ? left : sizeof as;
        core_sha256_update(&s, as, n);
        left -= n;
    }
    core_sha256_final_hex(&s, hex);
    assert_string_equal(hex, "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0");
}

static void test_fnv(void **state)
{
    (void)state;
    /* Published FNV-1a 64 test vectors. */
    assert_true(core_fnv1a(CORE_FNV_OFFSET, "", 0) == 0xcbf29ce484222325ULL);
    assert_true(core_fnv1a(CORE_FNV_OFFSET, "a", 1) == 0xaf63dc4c8601ec8cULL);
    assert_true(core_fnv1a(CORE_FNV_OFFSET, "foobar", 6) == 0x85944171f73967e8ULL);
}

static void test_files(void **state)
{
    (void)state;
    const char *tmp = getenv("WB_TEST_TMP");
    if (!tmp)
        tmp = "/tmp";
    char dir[512];
    snprintf(dir, sizeof dir, "%s/core-%ld/a/b", tmp, (long)getpid());
    struct core_err e;
    assert_int_equal(core_mkdir_p(dir, &e), 0);
    assert_int_equal(core_mkdir_p(dir, &e), 0);
    char *path = core_path_join(dir, "f.bin");
    const char data[] = "x\0y\xff";
    assert_int_equal(core_file_create(path, data, sizeof data, false, NULL, &e), 0);
    char *got;
    size_t len;
    assert_int_equal(core_file_read(path, 1024, &got, &len, &e), 0);
    assert_int_equal(len, sizeof data);
    assert_memory_equal(got, data, sizeof data);
    free(got);
    assert_int_equal(core_file_read(path, 2, &got, &len, &e), CORE_ERR_INVALID);
    assert_null(got);
    char *missing = core_path_join(dir, "nope");
    assert_int_equal(core_file_read(missing, 10, &got, &len, &e), CORE_ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, "nope"));
    assert_int_equal(core_file_read(dir, 10, &got, &len, &e), CORE_ERR_IO);
    free(missing);
    free(path);
}

/* A user-named path is created new: an existing file, a link (dangling or
 * not), a FIFO and a device are refused and left as they were; overwrite
 * replaces a regular file only. */
static void test_create_new(void **state)
{
    (void)state;
    const char *tmp = getenv("WB_TEST_TMP");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/create-%ld", tmp ? tmp : "/tmp", (long)getpid());
    struct core_err e;
    assert_int_equal(core_mkdir_p(dir, &e), 0);
    char *file = core_path_join(dir, "f.csv"), *link = core_path_join(dir, "l.csv");
    char *dangling = core_path_join(dir, "d.csv"), *nothere = core_path_join(dir, "nothere");
    char *fifo = core_path_join(dir, "p.csv"), *missing = core_path_join(dir, "no/f.csv");
    char *got = NULL;
    size_t len;

    /* new: created, mode 0644 less the umask */
    assert_int_equal(core_file_check_new(file, false, NULL, &e), 0);
    assert_int_equal(core_file_create(file, "one", 3, false, "set overwrite=on", &e), 0);
    struct stat st;
    assert_int_equal(lstat(file, &st), 0);
    assert_true(S_ISREG(st.st_mode));
    /* exists: refused, naming it and the way to replace it */
    assert_int_equal(core_file_check_new(file, false, "set overwrite=on", &e), CORE_ERR_CONFLICT);
    assert_int_equal(core_file_create(file, "two", 3, false, "set overwrite=on", &e),
                     CORE_ERR_CONFLICT);
    assert_non_null(strstr(e.msg, file));
    assert_non_null(strstr(e.msg, "already exists"));
    assert_non_null(strstr(e.msg, "set overwrite=on to replace it"));
    assert_int_equal(core_file_read(file, 100, &got, &len, &e), 0);
    assert_string_equal(got, "one");
    free(got);
    /* overwrite: replaced whole, mode kept */
    assert_int_equal(chmod(file, 0600), 0);
    assert_int_equal(core_file_create(file, "three", 5, true, NULL, &e), 0);
    assert_int_equal(core_file_read(file, 100, &got, &len, &e), 0);
    assert_string_equal(got, "three");
    free(got);
    assert_int_equal(lstat(file, &st), 0);
    assert_int_equal(st.st_mode & 0777, 0600);

    /* a link to it: refused with or without overwrite; neither changes */
    assert_int_equal(symlink(file, link), 0);
    for (int ow = 0; ow < 2; ow++) {
        assert_int_equal(core_file_check_new(link, ow, NULL, &e), CORE_ERR_CONFLICT);
        assert_int_equal(core_file_create(link, "x", 1, ow, NULL, &e), CORE_ERR_CONFLICT);
        assert_non_null(strstr(e.msg, "symbolic link"));
        assert_non_null(strstr(e.msg, link));
    }
    assert_int_equal(lstat(link, &st), 0);
    assert_true(S_ISLNK(st.st_mode));
    assert_int_equal(core_file_read(file, 100, &got, &len, &e), 0);
    assert_string_equal(got, "three");
    free(got);
    /* a dangling link is not followed to create its target */
    assert_int_equal(symlink(nothere, dangling), 0);
    assert_int_equal(core_file_create(dangling, "x", 1, false, NULL, &e), CORE_ERR_CONFLICT);
    assert_int_equal(lstat(nothere, &st), -1);

    /* a FIFO and a device: not regular files, never written */
    assert_int_equal(mkfifo(fifo, 0600), 0);
    for (int ow = 0; ow < 2; ow++) {
        assert_int_equal(core_file_create(fifo, "x", 1, ow, NULL, &e), CORE_ERR_CONFLICT);
        assert_non_null(strstr(e.msg, "not a regular file (a FIFO)"));
    }
    assert_int_equal(lstat(fifo, &st), 0);
    assert_true(S_ISFIFO(st.st_mode));
    /* checked, never written: a failing test must not replace a real device */
    assert_int_equal(core_file_check_new("/dev/null", true, NULL, &e), CORE_ERR_CONFLICT);
    assert_non_null(strstr(e.msg, "a device"));

    /* a directory, a missing directory */
    assert_int_equal(core_file_check_new(dir, true, NULL, &e), CORE_ERR_INVALID);
    assert_non_null(strstr(e.msg, "it is a directory"));
    char *slash = core_xasprintf("%s/", dir);
    assert_int_equal(core_file_check_new(slash, true, NULL, &e), CORE_ERR_INVALID);
    assert_int_equal(core_file_create(missing, "x", 1, false, NULL, &e), CORE_ERR_NOTFOUND);
    assert_non_null(strstr(e.msg, "does not exist"));
    assert_int_equal(core_file_check_new("", false, NULL, &e), CORE_ERR_USAGE);

    unlink(file);
    unlink(link);
    unlink(dangling);
    unlink(fifo);
    rmdir(dir);
    free(slash);
    free(file);
    free(link);
    free(dangling);
    free(nothere);
    free(fifo);
    free(missing);
}

static void test_csv(void **state)
{
    (void)state;
    struct core_buf b;
    core_buf_init(&b);
    const char *cases[][3] = {
        /* text, unguarded, guarded */
        {"plain", "plain", "plain"},
        {"a,b", "\"a,b\"", "\"a,b\""},
        {"say \"hi\"", "\"say \"\"hi\"\"\"", "\"say \"\"hi\"\"\""},
        /* file text: its controls escaped, line breaks too, like everywhere */
        {"two\nlines", "two^Jlines", "two^Jlines"},
        {"\r=1", "^M=1", "^M=1"},
        {"\x1b[2J\xe2\x80\xae!", "^[[2J<U+202E>!", "^[[2J<U+202E>!"},
        /* ';' separates cells where the decimal point is a comma */
        {";x", "\";x\"", "\";x\""},
        {"a;=1+2", "\"a;=1+2\"", "\"a;=1+2\""},
        {" pad", "\" pad\"", "\" pad\""},
        {"=1+2", "=1+2", "\"'=1+2\""},
        {"+1", "+1", "\"'+1\""},
        {"-1", "-1", "\"'-1\""},
        {"@SUM(A1)", "@SUM(A1)", "\"'@SUM(A1)\""},
        {"\tx", "^Ix", "^Ix"},
        {"=\"a\",b", "\"=\"\"a\"\",b\"", "\"'=\"\"a\"\",b\""},
        {"Zoë", "Zoë", "Zoë"},
        {"", "", ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        for (int g = 0; g < 2; g++) {
            core_buf_reset(&b);
            core_csv_field(&b, cases[i][0], g == 1);
            assert_string_equal(b.data ? b.data : "", cases[i][1 + g]);
        }
    }
    core_buf_reset(&b);
    core_csv_field(&b, NULL, true);
    assert_int_equal(b.len, 0);
    const struct {
        double v;
        const char *s;
    } nums[] = {{1.5, "1.5"},      {2, "2"},         {0.004, "0"},    {-0.004, "0"},
                {12.346, "12.35"}, {-3.25, "-3.25"}, {100.1, "100.1"}};
    for (size_t i = 0; i < sizeof nums / sizeof nums[0]; i++) {
        core_buf_reset(&b);
        core_csv_num(&b, nums[i].v);
        assert_string_equal(b.data, nums[i].s);
    }
    core_buf_reset(&b);
    core_csv_num(&b, NAN);
    assert_int_equal(b.len, 0);
    assert_true(core_csv_is_formula("=x") && !core_csv_is_formula("x=") &&
                !core_csv_is_formula(NULL));
    core_buf_fini(&b);
}

/* A file built under a temporary name (a store SQLite writes) takes its
 * name only if that is free: an existing file is refused unless forced, a
 * link never. */
static void test_publish(void **state)
{
    (void)state;
    const char *tmp = getenv("WB_TEST_TMP");
    char dir[512];
    snprintf(dir, sizeof dir, "%s/core-publish-%ld", tmp ? tmp : "/tmp", (long)getpid());
    struct core_err e;
    assert_int_equal(core_mkdir_p(dir, &e), 0);
    char *p = core_path_join(dir, "out.db"), *target = core_path_join(dir, "target"),
         *link_p = core_path_join(dir, "link.db"), *tmpf = core_path_join(dir, "tmp");
    char *got;
    size_t len;
    assert_int_equal(core_file_create(tmpf, "one", 3, false, NULL, &e), 0);
    assert_int_equal(core_file_publish(tmpf, p, false, &e), 0);
    assert_int_equal(access(tmpf, F_OK), -1);
    assert_int_equal(core_file_read(p, 100, &got, &len, &e), 0);
    assert_memory_equal(got, "one", 3);
    free(got);
    assert_int_equal(core_file_create(tmpf, "new", 3, false, NULL, &e), 0);
    assert_int_equal(core_file_publish(tmpf, p, false, &e), CORE_ERR_CONFLICT);
    assert_non_null(strstr(e.msg, "--force"));
    assert_int_equal(core_file_create(target, "keep", 4, false, NULL, &e), 0);
    assert_int_equal(symlink(target, link_p), 0);
    assert_int_equal(core_file_publish(tmpf, link_p, true, &e), CORE_ERR_CONFLICT);
    assert_non_null(strstr(e.msg, "never replaced"));
    assert_int_equal(core_file_read(target, 100, &got, &len, &e), 0);
    assert_memory_equal(got, "keep", 4);
    free(got);
    assert_int_equal(core_file_publish(tmpf, p, true, &e), 0);
    assert_int_equal(core_file_read(p, 100, &got, &len, &e), 0);
    assert_memory_equal(got, "new", 3);
    free(got);
    unlink(p);
    unlink(target);
    unlink(link_p);
    rmdir(dir);
    free(p);
    free(target);
    free(link_p);
    free(tmpf);
}

static void test_time(void **state)
{
    (void)state;
    char iso[32];
    core_time_iso(0.25, iso);
    assert_string_equal(iso, "1970-01-01T00:00:00.250Z");
    core_time_iso(1795000000.0, iso);
    assert_int_equal(strlen(iso), 24);
    /* Reading a stored time back agrees with timegm, on leap days, before
     * 1970 and across centuries, and refuses what is not a time. */
    for (long t = -2208988800L; t < 4102444800L; t += 86400L * 37 + 3671) {
        time_t tt = (time_t)t;
        struct tm tm;
        gmtime_r(&tt, &tm);
        char buf[64];
        snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.125Z", tm.tm_year + 1900,
                 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec);
        assert_true(core_time_from_iso(buf) == (double)timegm(&tm) + 0.125);
    }
    assert_true(core_time_from_iso("2024-02-29T12:00:00Z") == 1709208000.0);
    assert_true(isnan(core_time_from_iso("2023-02-29T12:00:00Z")));
    assert_true(isnan(core_time_from_iso("2026-13-01T00:00:00Z")));
    assert_true(isnan(core_time_from_iso("2026-11-28 10:00:00Z")));
    assert_true(isnan(core_time_from_iso("2026-11-28T24:00:00Z")));
    assert_true(isnan(core_time_from_iso("2026-11-2")));
    /* the real clock reads the monotonic clock */
    double a = core_time_mono();
    double now = core_clock_real()->now(NULL);
    double b = core_time_mono();
    assert_true(a <= now && now <= b);
    /* its sleep never returns early without a signal (a lower bound only:
     * how long past the time it wakes is the scheduler's, not a test's) */
    core_clock_real()->sleep(NULL, 0.01);
    assert_true(core_clock_real()->now(NULL) - a >= 0.01 - 1e-6);
    core_clock_real()->sleep(NULL, 0); /* nothing to wait: returns */
    core_clock_real()->sleep(NULL, -1);
}

/* The first line of a small file: newline and trailing blanks dropped, a
 * long line cut, an empty or missing file refused. */
static void test_first_line(void **state)
{
    (void)state;
    const char *tmp = getenv("WB_TEST_TMP");
    char path[512], buf[8];
    snprintf(path, sizeof path, "%s/first-%ld.txt", tmp ? tmp : "/tmp", (long)getpid());
    FILE *f = fopen(path, "w");
    assert_non_null(f);
    fputs(" 32K \t\nsecond\n", f);
    fclose(f);
    assert_true(core_file_first_line(path, buf, sizeof buf));
    assert_string_equal(buf, " 32K");
    f = fopen(path, "w");
    fputs("0123456789\n", f);
    fclose(f);
    assert_true(core_file_first_line(path, buf, sizeof buf));
    assert_string_equal(buf, "0123456");
    f = fopen(path, "w");
    fclose(f);
    assert_false(core_file_first_line(path, buf, sizeof buf));
    remove(path);
    assert_false(core_file_first_line(path, buf, sizeof buf));
}

/* The owner of a record: this process is alive; a child that has exited is
 * certainly gone; text from another host or garbage cannot be told. */
static void test_owner(void **state)
{
    (void)state;
    char me[CORE_OWNER_MAX];
    core_owner_self(me);
    assert_int_equal(core_owner_alive(me), 1);

    int fds[2];
    assert_int_equal(pipe(fds), 0);
    pid_t pid = fork();
    assert_true(pid >= 0);
    if (pid == 0) {
        char child[CORE_OWNER_MAX];
        core_owner_self(child);
        ssize_t w = write(fds[1], child, strlen(child) + 1);
        _exit(w > 0 ? 0 : 1);
    }
    char child[CORE_OWNER_MAX] = {0};
    assert_true(read(fds[0], child, sizeof child - 1) > 0);
    close(fds[0]);
    close(fds[1]);
    int status;
    assert_int_equal(waitpid(pid, &status, 0), pid);
    assert_string_not_equal(child, me);
    assert_int_equal(core_owner_alive(child), 0);

    /* the same pid with another start time is a reused pid: gone */
    char reused[CORE_OWNER_MAX + 8];
    snprintf(reused, sizeof reused, "%.*s|1", (int)(strrchr(me, '|') - me), me);
    assert_int_equal(core_owner_alive(reused), 0);

    assert_int_equal(core_owner_alive("elsewhere.example|b00t|1|1"), -1);
    assert_int_equal(core_owner_alive("no bars at all"), -1);
    assert_int_equal(core_owner_alive(""), -1);
    assert_int_equal(core_owner_alive(NULL), -1);
}

/* UTF-8: valid sequences decode with their length, anything else is one
 * invalid byte; stepping back agrees with stepping forward on every byte
 * string, valid or not. */
/* The one edit distance: swaps count once, the bound cuts the search short,
 * and names past 64 bytes are never close. */
static void test_edits(void **state)
{
    (void)state;
    assert_int_equal(core_str_distance("latency", "latency"), 0);
    assert_int_equal(core_str_distance("latency", "latnecy"), 1); /* a swap */
    assert_int_equal(core_str_distance("latency", "latancy"), 1);
    assert_int_equal(core_str_distance("occupancy", "ocupncy"), 2);
    assert_int_equal(core_str_distance("", "abc"), 3);
    assert_int_equal(core_str_edits("occupancy", 9, "ocupncy", 7, 1), 2); /* past max: max + 1 */
    assert_int_equal(core_str_edits("occupancy", 9, "ocupancy", 8, 1), 1);
    assert_int_equal(core_str_edits("abcdefgh", 8, "zzzzzzzz", 8, 2), 3);
    assert_int_equal(core_str_edits("tile", 2, "ti", 2, 0), 0); /* lengths, not NULs */
    char long_a[70], long_b[70];
    memset(long_a, 'a', 65);
    long_a[65] = '\0';
    memcpy(long_b, long_a, 66);
    assert_int_equal(core_str_distance(long_a, long_b), 99);
    assert_int_equal(core_str_edits(long_a, 65, long_b, 65, 3), 4);
    const char *names[] = {"shard", "async", "all-reduce"};
    assert_string_equal(core_str_closest("shrad", names, 3), "shard");
    assert_null(core_str_closest("tiling", names, 3));
}

static void test_utf8(void **state)
{
    (void)state;
    uint32_t cp;
    assert_int_equal(core_utf8_decode("a", &cp), 1);
    assert_int_equal(cp, 'a');
    assert_int_equal(core_utf8_decode("\xC3\xA9", &cp), 2); /* é */
    assert_int_equal(cp, 0xE9);
    assert_int_equal(core_utf8_decode("\xE2\x96\xB6", &cp), 3); /* ▶ */
    assert_int_equal(cp, 0x25B6);
    assert_int_equal(core_utf8_decode("\xF0\x9F\x98\x80", &cp), 4);
    assert_int_equal(cp, 0x1F600);
    static const char *const bad[] = {
        "\x80",
        "\xC0\x80",
        "\xC1\xBF", /* stray, overlong */
        "\xE0\x80\x80",
        "\xED\xA0\x80",
        "\xF4\x90\x80\x80", /* overlong, surrogate, >10FFFF */
        "\xF5\x80\x80\x80",
        "\xE2\x82",
        "\xE2\x82"
        "A", /* F5, cut short */
    };
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        if (core_utf8_decode(bad[i], &cp) != 0 || cp != 0xFFFD)
            fail_msg("bad[%zu] decoded as valid", i);
    }
    char u[4];
    static const uint32_t cps[] = {'a', 0x7F, 0x80, 0x7FF, 0x800, 0xFFFD, 0x10000, 0x10FFFF};
    for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++) {
        size_t n = core_utf8_encode(u, cps[i]);
        char z[5] = {0};
        memcpy(z, u, n);
        assert_int_equal(core_utf8_decode(z, &cp), n);
        assert_int_equal(cp, cps[i]);
    }
    assert_int_equal(core_utf8_encode(u, 0xDC00), 3); /* a surrogate encodes U+FFFD */
    assert_memory_equal(u, "\xEF\xBF\xBD", 3);

    /* Stepping: forward from 0 visits the starts; prev from each start finds
     * the one before. Mixed valid and invalid text. */
    static const char *const texts[] = {
        "",
        "abc",
        "a\xC3\xA9"
        "b\xE2\x96\xB6\xF0\x9F\x98\x80",
        "\x80\x80\x80\x80\x80"
        "x",                /* stray continuation bytes */
        "\xC3\xA9\x80\x80", /* é then strays */
        "\xE2\x82"
        "x\xF0\x9F\x98",            /* cut short twice */
        "\xC3\xA9\xE2\x96\xB6\x80", /* a stray after a 3-byte char */
        "\xED\xA0\x80\xC0\xAF",     /* surrogate, overlong */
    };
    for (size_t t = 0; t < sizeof texts / sizeof texts[0]; t++) {
        const char *s = texts[t];
        size_t starts[32], n = 0;
        for (size_t at = 0; s[at]; at = core_utf8_next(s, at))
            starts[n++] = at;
        starts[n] = strlen(s);
        assert_int_equal(core_utf8_next(s, starts[n]), starts[n]); /* at the NUL */
        for (size_t k = n; k > 0; k--)
            if (core_utf8_prev(s, starts[k]) != starts[k - 1])
                fail_msg("text %zu: prev(%zu) = %zu, want %zu", t, starts[k],
                         core_utf8_prev(s, starts[k]), starts[k - 1]);
        assert_int_equal(core_utf8_prev(s, 0), 0);
    }
}

/* The one sanitiser of text someone else wrote: C0 and DEL in caret
 * notation, C1, U+2028/9 and the bidi controls as <U+XXXX>, bytes that are
 * not UTF-8 as <xHH>; newlines and tabs kept only when asked. */
static void test_text(void **state)
{
    (void)state;
    const struct {
        const char *in;
        unsigned flags;
        const char *out;
    } cases[] = {
        {"plain Zo\xc3\xab \xe2\x82\xac", 0, "plain Zo\xc3\xab \xe2\x82\xac"},
        {"a\x1b]0;t\x07"
         "b",
         0, "a^[]0;t^Gb"},
        {"x\x7f\x01", 0, "x^?^A"},
        {"one\ntwo\tthree", 0, "one^Jtwo^Ithree"},
        {"one\ntwo\tthree", CORE_TEXT_NEWLINES, "one\ntwo^Ithree"},
        {"one\ntwo\tthree", CORE_TEXT_NEWLINES | CORE_TEXT_TABS, "one\ntwo\tthree"},
        {"\r\n", CORE_TEXT_NEWLINES, "^M\n"},
        {"c1 \xc2\x85 \xc2\x9b", 0, "c1 <U+0085> <U+009B>"},
        {"ls \xe2\x80\xa8 ps \xe2\x80\xa9", 0, "ls <U+2028> ps <U+2029>"},
        {"\xe2\x80\xae"
         "evil\xe2\x80\xac \xe2\x81\xa6i\xe2\x81\xa9 \xe2\x80\x8f \xd8\x9c",
         0, "<U+202E>evil<U+202C> <U+2066>i<U+2069> <U+200F> <U+061C>"},
        {"bad \x9b\xff\xc3", 0, "bad <x9B><xFF><xC3>"},
        {"", 0, ""},
    };
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        char *got = core_text_safe(cases[i].in, cases[i].flags);
        assert_string_equal(got, cases[i].out);
        assert_int_equal(core_text_clean(cases[i].in, cases[i].flags),
                         strcmp(cases[i].in, cases[i].out) == 0);
        free(got);
    }
    char *none = core_text_safe(NULL, 0);
    assert_string_equal(none, "");
    free(none);
    assert_true(core_text_clean(NULL, 0));
    assert_true(core_text_unsafe(0x202E) && core_text_unsafe(0x85) && core_text_unsafe(0));
    assert_false(core_text_unsafe(0x20) || core_text_unsafe(0xA0) || core_text_unsafe(0x200B));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_err),          cmocka_unit_test(test_err_long),
        cmocka_unit_test(test_buf_and_list), cmocka_unit_test(test_json),
        cmocka_unit_test(test_sha256),       cmocka_unit_test(test_fnv),
        cmocka_unit_test(test_files),        cmocka_unit_test(test_time),
        cmocka_unit_test(test_owner),        cmocka_unit_test(test_first_line),
        cmocka_unit_test(test_create_new),   cmocka_unit_test(test_csv),
        cmocka_unit_test(test_publish),      cmocka_unit_test(test_utf8),
        cmocka_unit_test(test_text),         cmocka_unit_test(test_edits),
    };
    return cmocka_run_group_tests(tests, NULL, NULL);
}
