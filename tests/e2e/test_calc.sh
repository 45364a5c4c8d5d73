#!/usr/bin/env bash
# Calculators from the command line: list (text and JSON), a run with
# defaults and with --set (inputs used, outputs with units, text verbatim),
# bad inputs (not a number, out of range, not whole, unknown name: exit 2),
# an unknown calculator (5), one that breaks for some inputs (4), and an id
# declared by two packs (ambiguous when bare, fine as pack:id).
. "$(dirname "$0")/lib.sh"

mkdir -p "$T/calc"
cat >"$T/calc/pack.lua" <<'LUA'
pack { id = "test.calc", title = "Calculators", version = "1", lessons = { "tools.lua" } }
LUA
cat >"$T/calc/tools.lua" <<'LUA'
lesson { id = "tools", title = "Tools" }
page [[
# Tools
]]
calculator {
  id = "amdahl-speedup",
  title = "Amdahl speedup",
  inputs = {
    { name = "f", label = "serial fraction f", default = 0.1, min = 0, max = 1 },
    { name = "p", label = "processors p", default = 8, min = 1, max = 100000, integer = true },
  },
  compute = function(v)
    local bar = string.rep("#", math.floor(10 * v.f + 0.5))
    return {
      { label = "speedup S(p)", value = 1 / (v.f + (1 - v.f) / v.p), unit = "×" },
      { label = "efficiency", value = 100 / (v.f + (1 - v.f) / v.p) / v.p, unit = "%" },
      { label = "kind of p", text = math.type(v.p) },
      { label = "timeline", text = "serial   [" .. bar .. "]\nparallel [" .. string.rep("=", 10 - #bar) .. "]\n" },
    }
  end,
  examples = { { inputs = { f = 0.2, p = 4 }, outputs = { 2.5, 62.5, "integer" } } },
}
calculator {
  id = "units",
  title = "Unit formatting",
  inputs = { { name = "x", default = 1, min = 0, max = 10 } },
  compute = function(v)
    return {
      { label = "bandwidth", value = 1.5e12 * v.x, unit = "B/s" },
      { label = "latency", value = 3.2e-4 * v.x, unit = "s" },
      { label = "ratio", value = 0.123456 * v.x },
      { label = "custom", value = 42 * v.x, unit = "tokens/s" },
      { label = "pole", value = 1 / (v.x - 3) },
    }
  end,
}
calculator {
  id = "speedup.amdahl",
  title = "Same id as the example pack's",
  inputs = { { name = "f", default = 0.5, min = 0, max = 1 } },
  compute = function(v) return { { label = "limit", value = 1 / v.f } } end,
}
LUA

run pack check "$T/calc"
expect_rc 0 "pack check of the calculator pack"
run pack import "$T/calc"
expect_rc 0 "import the calculator pack"
run pack import "$WB_SOURCE_DIR/lessons/examples/minimal"
expect_rc 0 "import the example pack"

# The list: id, lesson, title; an id two packs use is shown as pack:id.
run calc
expect_rc 0 "list"
expect_out "amdahl-speedup" "list names the calculator"
expect_out "Amdahl speedup" "list shows the title"
expect_out "tools" "list shows the lesson"
expect_out "test.calc:speedup.amdahl" "a shared id is shown with its pack"
expect_out "example.minimal:speedup.amdahl" "the example pack's calculator"
run --json calc
expect_rc 0 "list --json"
expect_jq '[.[] | select(.pack == "test.calc") | .id] | join(",")' "amdahl-speedup,units,speedup.amdahl" "JSON list in order"
expect_jq '.[] | select(.id == "amdahl-speedup") | .lesson' "tools" "JSON lesson"
expect_jq '.[] | select(.id == "amdahl-speedup") | .inputs | join(",")' "f,p" "JSON inputs"

# A run with the defaults, then with --set.
run calc amdahl-speedup
expect_rc 0 "run with defaults"
expect_out "4.706×" "S(8) for f = 0.1"
expect_out "(default)" "defaults are marked"
run calc amdahl-speedup --set f=0.2 --set p=4
expect_rc 0 "run with --set"
expect_out "2.5×" "S(4) for f = 0.2"
expect_out "62.5%" "efficiency"
expect_out "integer" "an integer input arrives as an integer"
expect_out "(set)" "set inputs are marked"
expect_out "serial   [##]" "a text output verbatim, first line"
expect_out "parallel [========]" "a text output verbatim, second line"
grep -qE '^  f = 0\.2 +serial fraction f +\(set\)$' <<<"$OUT" && ok || fail "inputs used: $OUT"
run --json calc test.calc:amdahl-speedup --set f=0.5
expect_rc 0 "run --json"
expect_jq .id "amdahl-speedup" "JSON id"
expect_jq .pack "test.calc" "JSON pack"
expect_jq '.inputs[0].value' "0.5" "JSON input set"
expect_jq '.inputs[0].given' "true" "JSON given"
expect_jq '.inputs[1].value' "8" "JSON default used"
expect_jq '.inputs[1].given' "false" "JSON default not given"
expect_jq '.inputs[1].max' "100000" "JSON range"
expect_jq '.outputs[0].value' "1.7777777777777777" "JSON value"
expect_jq '.outputs[0].unit' "×" "JSON unit"
expect_jq '.outputs[0].display' "1.778×" "JSON display"
expect_jq '.outputs[2].value' "null" "a text output has no value"
expect_jq '.outputs[2].text' "integer" "JSON text"

# Units: decimal prefixes for base units, ms/µs for seconds, others as written.
run calc units --set x=2
expect_rc 0 "units"
expect_out "3 TB/s" "B/s scaled"
expect_out "640 µs" "s scaled"
expect_out "0.2469" "4 significant figures"
expect_out "84 tokens/s" "other units as written"

# Bad inputs: a clear message and exit 2.
run calc amdahl-speedup --set f=abc
expect_rc 2 "not a number"
expect_err "'abc' is not a number" "says so"
run calc amdahl-speedup --set f=2
expect_rc 2 "out of range"
expect_err "input 'f' (serial fraction f) must be from 0 to 1, got 2" "names the input and range"
run calc amdahl-speedup --set p=2.5
expect_rc 2 "not whole"
expect_err "must be a whole number" "says so"
run calc amdahl-speedup --set q=1
expect_rc 2 "unknown input"
expect_err "no input 'q'; its inputs are: f (serial fraction f), p (processors p)" "names the known inputs"
run calc amdahl-speedup --set f=0.1 --set f=0.2
expect_rc 2 "given twice"
run calc amdahl-speedup --set f
expect_rc 2 "no value"
expect_err "NAME=VALUE" "says how"
run calc amdahl-speedup --set
expect_rc 2 "--set at the end"
run calc --set f=0.2
expect_rc 2 "--set without a calculator"
run calc amdahl-speedup units
expect_rc 2 "two calculators"
run calc nosuch
expect_rc 5 "unknown calculator"
expect_err "no calculator 'nosuch'" "says so"
run calc speedup.amdahl
expect_rc 2 "ambiguous id"
expect_err "example.minimal:speedup.amdahl" "names the packs"
run --json calc example.minimal:speedup.amdahl --set p=1
expect_rc 0 "pack:id"
expect_jq '.outputs[0].value' "1" "S(1) = 1"

# A calculator that breaks for some inputs is the pack's fault: exit 4.
run calc units --set x=3
expect_rc 4 "infinite value"
expect_err "tools.lua:23: calculator units: output 5 ('pole'): value is inf" "names file:line"
expect_err "with x=3" "and the inputs"
finish
