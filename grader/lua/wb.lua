-- wb.lua — the Lua half of the `wb` library, embedded in the binary and
-- loaded into every grader sandbox after the C half (grader_wb.c).
--
-- Called with the `wb` table (already holding the C functions). Adds the
-- public helpers that are easier to say in Lua (whole-word phrase matching,
-- rubric concepts, the scaling formulas) and returns the private graders the
-- C side calls for `text` and `design` questions; instructor code never sees
-- that table. Library functions are captured as locals here, before any
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

local function concept_found(c, padded, normed)
  if type(c.match) == "table" then
    for _, phrase in ipairs(c.match) do
      if has_words(padded, tostring(phrase)) then return true end
    end
  end
  if type(c.patterns) == "table" then
    for _, pat in ipairs(c.patterns) do
      if find(normed, pat) then return true end
    end
  end
  return false
end

-- Score fraction and, per concept index, whether it was found.
local function judge(text, concepts)
  local padded, normed = " " .. words(text) .. " ", norm(text)
  local total, got, hit = 0, 0, {}
  for i, c in ipairs(concepts) do
    local pts = c.points or 1
    total = total + pts
    if concept_found(c, padded, normed) then
      got = got + pts
      hit[i] = true
    end
  end
  return total > 0 and got / total or 0, hit
end

function wb.concepts(text, concepts)
  if type(text) ~= "string" or type(concepts) ~= "table" then
    error("wb.concepts(text, concepts): a string and a list of concepts expected", 2)
  end
  local score, hit = judge(text, concepts)
  local missed, found = {}, {}
  for i, c in ipairs(concepts) do
    local name = c.name or ("concept " .. i)
    if hit[i] then found[#found + 1] = name else missed[#missed + 1] = name end
  end
  return score, missed, found
end

-- Private graders (called from grader_grade.c) -----------------------------

local graders = {}

-- design: score fraction and feedback naming every missed concept.
function graders.design(concepts, answer)
  local score, hit = judge(answer, concepts)
  local found, lines = {}, {}
  for i, c in ipairs(concepts) do
    local name = c.name or ("concept " .. i)
    if hit[i] then
      found[#found + 1] = name
    else
      lines[#lines + 1] = "Missing: " .. name .. (c.feedback and (". " .. c.feedback) or ".")
    end
  end
  local text = join(lines, "\n")
  if #found > 0 then
    text = "Covered: " .. join(found, ", ") .. "." .. (text ~= "" and "\n" .. text or "")
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
