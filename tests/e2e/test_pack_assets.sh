#!/usr/bin/env bash
# Files of a pack folder that are not lessons: only those pack.lua declares
# in `assets` are read and stored (and exported back); any other file — a
# 50 MB video left in the folder — is never opened and the pack is accepted.
# A declared asset over the limit, a total over the limit and a pattern that
# matches nothing are refused, naming the file or the pattern.
. "$(dirname "$0")/lib.sh"

P="$T/pack"
mkdir -p "$P/img" "$P/notes"
cat >"$P/pack.lua" <<'LUA'
pack { id = "test.assets", title = "Assets", version = "1", lessons = { "l.lua" } }
LUA
cat >"$P/l.lua" <<'LUA'
lesson { id = "l", title = "L" }
question { id = "q", kind = "numeric", prompt = "1 + 1?", answer = 2 }
LUA
truncate -s 50M "$P/lecture.mp4" # sparse: 50 MB to read, nothing on disk
printf 'draft\n' >"$P/notes/todo.txt"
chmod 000 "$P/notes/todo.txt" # unreadable: it must not even be opened
files() { sql "SELECT group_concat(f.path, ',') FROM (SELECT f.path FROM packs p JOIN pack_files f ON f.rev_id = p.rev_id WHERE p.id = 'test.assets' ORDER BY f.path) f"; }

run pack check "$P"
expect_rc 0 "a 50 MB file the pack does not declare is no problem"
run pack import "$P"
expect_rc 0 "imported"
[ "$(files)" = "l.lua,pack.lua" ] && ok || fail "only the lessons are stored: $(files)"

# declared assets are stored and exported back
printf '\211PNG small\n' >"$P/img/a.png"
printf '\211PNG also\n' >"$P/img/b.png"
cat >"$P/pack.lua" <<'LUA'
pack { id = "test.assets", title = "Assets", version = "2", lessons = { "l.lua" },
       assets = { "img/*.png" } }
LUA
run pack import "$P"
expect_rc 0 "with two declared assets"
[ "$(files)" = "img/a.png,img/b.png,l.lua,pack.lua" ] && ok || fail "the assets are stored: $(files)"
run pack export test.assets "$T/out"
expect_rc 0 "export"
cmp -s "$P/img/a.png" "$T/out/img/a.png" && ok || fail "an asset exported byte for byte"
[ ! -e "$T/out/lecture.mp4" ] && ok || fail "an undeclared file was exported"

# a declared asset over the limit: refused, naming it
truncate -s 5M "$P/img/huge.png"
sed -i 's/version = "2"/version = "3"/' "$P/pack.lua"
run pack check "$P"
expect_rc 4 "an asset over the limit"
expect_err "img/huge.png: 5242880 bytes: an asset may have at most 4 MiB" "names the file and the limit"
run pack import "$P"
expect_rc 4 "not imported either"
[ "$(files)" = "img/a.png,img/b.png,l.lua,pack.lua" ] && ok || fail "the store is unchanged: $(files)"
rm "$P/img/huge.png"

# all of them together over the limit
for i in 1 2 3 4 5; do truncate -s 4000000 "$P/img/big$i.png"; done
run pack check "$P"
expect_rc 4 "assets over the total limit"
expect_err "bytes in all: a pack's assets may have at most 16 MiB" "says the total is too big"
rm "$P"/img/big*.png

# a pattern that matches nothing is a typo
sed -i 's|"img/\*.png"|"img/*.png", "slides/*.pdf"|' "$P/pack.lua"
run pack check "$P"
expect_rc 4 "a pattern that matches nothing"
expect_err "'slides/*.pdf' matches no file" "names the pattern"

# a pattern may not leave the folder
sed -i 's|"slides/\*.pdf"|"../*.lua"|' "$P/pack.lua"
run pack check "$P"
expect_rc 4 "a pattern outside the folder"
expect_err "must be a pattern of files inside the pack folder" "says why"
chmod 644 "$P/notes/todo.txt"
finish
