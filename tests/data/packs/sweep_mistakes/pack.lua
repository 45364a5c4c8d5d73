-- A pack with one mistake per question that only some variants show (and
-- an unknown rubric item): `pack check` must find each, naming file, line,
-- question and variant (tests/e2e/test_pack_sweep.sh). Variant 1 of the
-- example student is good everywhere, so the load-time check passes and
-- only the variant sweep can find them.
pack {
  id = "test.sweep",
  title = "Mistakes that hide in some variants",
  version = "1",
  lessons = { "mistakes.lua" },
}
