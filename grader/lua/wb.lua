-- wb.lua — the Lua half of the `wb` library, embedded in the binary and
-- loaded into every grader sandbox after the C half (grader_wb.c).
--
-- Called with the `wb` table (already holding the C functions). Adds the
-- public helpers that are easier to say in Lua (whole-word phrase matching,
-- rubric concepts over the C judge of grader_design.c, the scaling
-- formulas) and returns the private graders the C side calls for `text` and
-- `design` questions; instructor code never sees that table, nor the judge. Library functions are captured as locals here, before any
-- pack code runs, so a pack that reassigns string.find cannot change how
-- its answers are matched.

local wb = ...
local find = string.find
local type, ipairs, error, tostring = type, ipairs, error, tostring
local norm, words = wb.norm, wb.words

-- `table` is opened only when a grader uses it; joining short lists here
-- does not need it.
local function join(list, sep)
  local s = ""
  for i, v in ipairs(list) do s = (i > 1 and s .. sep or s) .. v end
  return s
end

-- Scaling formulas ---------------------------------------------------------

function wb.amdahl(f, p) return 1 / (f + (1 - f) / p) end
function wb.gustafson(f, p) return p - f * (p - 1) end
function wb.karp_flatt(s, p) return (1 / s - 1 / p) / (1 - 1 / p) end

-- Phrases and concepts -----------------------------------------------------

-- `padded` is " " .. words(text) .. " ": a phrase is present when its words
-- appear there in order, as whole words.
local function has_words(padded, phrase)
  local w = words(phrase)
  return w ~= "" and find(padded, " " .. w .. " ", 1, true) ~= nil
end

function wb.has(text, phrase)
  if type(text) ~= "string" or type(phrase) ~= "string" then
    error("wb.has(text, phrase): two strings expected", 2)
  end
  return has_words(" " .. words(text) .. " ", phrase)
end

-- The design rule is in C (grader_design.c, the private wb._judge): claims
-- not terms, negated clauses, contradictions, near-by terms, misspellings.
-- judge(text, concepts) -> score, list, status, contra (see grader_wb.c).
local judge = wb._judge
wb._judge = nil

local function concept_name(c, i)
  return type(c) == "table" and type(c.name) == "string" and c.name or ("concept " .. i)
end

function wb.concepts(text, concepts)
  if type(text) ~= "string" or type(concepts) ~= "table" then
    error("wb.concepts(text, concepts): a string and a list of concepts expected", 2)
  end
  local score, list, status = judge(text, concepts)
  local missed, found = {}, {}
  for i, c in ipairs(concepts) do
    local name = concept_name(c, i)
    if status[i] == "found" and not list then
      found[#found + 1] = name
    else
      missed[#missed + 1] = name
    end
  end
  return score, missed, found, { list = list, status = status }
end

-- Private graders (called from grader_grade.c) -----------------------------

local graders = {}

local SENTENCES = "This reads as a list of terms, not sentences, so no concept counts. " ..
  "A design answer earns credit for claims: write sentences that say what " ..
  "happens and why (\"the writes are strided, so each warp touches 32 sectors\"), " ..
  "not only the names of things."

-- design: score fraction and feedback naming every concept missed, and why.
function graders.design(concepts, answer)
  local score, list, status, contra = judge(answer, concepts)
  local found, lines = {}, {}
  for i, c in ipairs(concepts) do
    local name = concept_name(c, i)
    local fb = type(c) == "table" and c.feedback
    local why = fb and (". " .. fb) or "."
    local st = status[i]
    if st == "found" and not list then
      found[#found + 1] = name
    elseif st == "contradicted" then
      local e = c.contradicts[contra[i]]
      local own = type(e) == "table" and e.feedback
      lines[#lines + 1] = "Contradicted: " .. name .. ". " ..
        (own or ("What you wrote says the opposite" .. why))
    elseif st == "negated" then
      lines[#lines + 1] = "Missing: " .. name ..
        " (you mention it only in a negated clause)" .. why
    elseif st == "unclaimed" or st == "found" then
      lines[#lines + 1] = "Missing: " .. name ..
        " (named, but not in a sentence that says something about it)" .. why
    else
      lines[#lines + 1] = "Missing: " .. name .. why
    end
  end
  local text = join(lines, "\n")
  if #found > 0 then
    text = "Covered: " .. join(found, ", ") .. "." .. (text ~= "" and "\n" .. text or "")
  end
  if list then
    text = SENTENCES .. (text ~= "" and "\n" .. text or "")
  end
  return score, text
end

-- text: 1 when the normalised answer equals a normalised accepted string or
-- matches one of the patterns, else 0.
function graders.text(accepted, patterns, answer)
  local a = norm(answer)
  for _, s in ipairs(accepted) do
    if norm(s) == a then return 1 end
  end
  if patterns then
    for _, pat in ipairs(patterns) do
      if find(a, pat) then return 1 end
    end
  end
  return 0
end

return graders
