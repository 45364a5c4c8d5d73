#!/usr/bin/env bash
# The built-in course cannot be replaced by an imported pack: `pack import`
# of a folder claiming warpbench.core (any version, even with --force) or any
# id under the reserved "warpbench." prefix is refused (exit 7) and the
# course stays; a store where the course was replaced anyway (by an older
# Warpbench, or by hand) gets it back when it is next opened, and
# `init --restore-course` says so; a course written by a newer Warpbench is
# kept.
. "$(dirname "$0")/lib.sh"

run --json init
expect_rc 0 "init"
BUILTIN=$(jqv .course.built_in)
[ -n "$BUILTIN" ] && [ "$BUILTIN" != null ] && ok || fail "init names the built-in version: $OUT"
expect_jq .course.version "$BUILTIN" "the store holds this build's course"
course_version() { sql "SELECT r.version FROM packs p JOIN pack_revs r ON r.id = p.rev_id WHERE p.id = 'warpbench.core'"; }
course_marked() { sql "SELECT COUNT(*) FROM packs p JOIN pack_files f ON f.rev_id = p.rev_id WHERE p.id = 'warpbench.core' AND f.path = '.warpbench-builtin'"; }
[ "$(course_marked)" = 1 ] && ok || fail "the stored course carries the built-in marker"

# ---- a folder claiming the course is refused ------------------------------------
# The impostor: a small pack (the minimal example) claiming the course's id.
cp -r "$WB_SOURCE_DIR/lessons/examples/minimal" "$T/fake"
sed -i 's/id = "example.minimal"/id = "warpbench.core"/; s/version = "1.0.0"/version = "99.0.0"/' \
  "$T/fake/pack.lua"
run pack check "$T/fake"
expect_rc 0 "pack check of a pack claiming the id is fine (checking stores nothing)"
for force in "" --force; do
  # shellcheck disable=SC2086
  run pack import "$T/fake" $force
  expect_rc 7 "import of warpbench.core 99.0.0 ${force:-without --force}"
  expect_err 'pack id "warpbench.core" is reserved' "says the id is reserved"
  expect_err "init --restore-course" "says how to bring the course back"
  [ "$(course_version)" = "$BUILTIN" ] && ok || fail "the course was replaced (${force:-no force})"
done
sed -i 's/id = "warpbench.core"/id = "warpbench.extra"/' "$T/fake/pack.lua"
run pack import "$T/fake" --force
expect_rc 7 "another id under the reserved prefix"
expect_err 'pack id "warpbench.extra" is reserved' "names the id"
expect_sql "SELECT COUNT(*) FROM packs WHERE id LIKE 'warpbench%'" 1 "only the course holds a reserved id"

# ---- a course replaced anyway is restored on the next open ------------------------
# What an older Warpbench's `pack import` could do: the impostor is imported
# under its own id here, then made the course's current revision by hand.
sed -i 's/id = "warpbench.extra"/id = "test.fake"/' "$T/fake/pack.lua"
run pack import "$T/fake"
expect_rc 0 "the impostor under its own id"
sql "UPDATE pack_revs SET pack_id = 'warpbench.core' WHERE id = (SELECT rev_id FROM packs WHERE id = 'test.fake');
     UPDATE packs SET rev_id = (SELECT rev_id FROM packs WHERE id = 'test.fake') WHERE id = 'warpbench.core';"
[ "$(course_version)" = 99.0.0 ] && [ "$(course_marked)" = 0 ] && ok || fail "the impostor is in place"
run lessons
expect_rc 0 "lessons after the course was replaced"
expect_err "restored the built-in course" "opening the store restores it"
expect_err "warpbench.core 99.0.0 was not built into Warpbench" "and says what it replaced"
[ "$(course_version)" = "$BUILTIN" ] && [ "$(course_marked)" = 1 ] && ok ||
  fail "the built-in course is current again ($(course_version))"
run lessons
expect_rc 0 "lessons again"
[ -z "$ERR" ] && ok || fail "nothing to restore the second time: $ERR"
run --json lessons
expect_jq '[.packs[] | select(.id == "warpbench.core") | .lessons[].id] | index("speedup")' null \
  "the impostor's lesson is gone"
run show amdahl
expect_rc 0 "the course's own lesson is served"

# init --restore-course after the same replacement: restored and reported
sql "UPDATE packs SET rev_id = (SELECT MAX(id) FROM pack_revs WHERE version = '99.0.0') WHERE id = 'warpbench.core';"
run --json init --restore-course
expect_rc 0 "init --restore-course"
expect_jq .course.action restored "reports the restore"
expect_jq .course.found 99.0.0 "names what it replaced"
expect_jq .course.version "$BUILTIN" "this build's course"
run init --restore-course
expect_rc 0 "init --restore-course with nothing to do"
expect_out "course: warpbench.core $BUILTIN in place" "says the course is in place"

# ---- a newer Warpbench's course (marked) is kept ------------------------------------
sql "INSERT INTO pack_revs(pack_id, version, digest, title, description, imported_at)
       SELECT pack_id, '99.1.0', 'newer', title, description, imported_at FROM pack_revs
       WHERE id = (SELECT rev_id FROM packs WHERE id = 'warpbench.core');
     INSERT INTO pack_files(rev_id, path, content, sha256)
       SELECT (SELECT MAX(id) FROM pack_revs), path, content, sha256 FROM pack_files
       WHERE rev_id = (SELECT rev_id FROM packs WHERE id = 'warpbench.core');
     UPDATE packs SET rev_id = (SELECT MAX(id) FROM pack_revs) WHERE id = 'warpbench.core';"
run lessons
expect_rc 0 "lessons with a newer course"
[ -z "$ERR" ] && ok || fail "a newer course is not touched: $ERR"
[ "$(course_version)" = 99.1.0 ] && ok || fail "the newer course was replaced"
run init --restore-course
expect_rc 0 "init --restore-course with a newer course"
expect_out "from a newer Warpbench is kept" "says why it keeps it"
[ "$(course_version)" = 99.1.0 ] && ok || fail "--restore-course downgraded the store"

finish
