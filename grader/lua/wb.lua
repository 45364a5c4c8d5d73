-- wb.lua — the Lua half of the `wb` library, embedded in the binary and
-- loaded into every grader sandbox after the C half (grader_wb.c).
--
-- Called with the `wb` table (already holding the C functions). Adds the
-- public helpers that are easier to say in Lua (whole-word phrase matching,
-- rubric concepts over the C judge of grader_wb_design.c, the scaling
-- formulas) and returns the private graders the C side calls for `text` and
-- `design` questions; instructor code never sees that table, nor the judge. Library functions are captured as locals here, before any
-- pack code runs, so a pack that reassigns string.find cannot change how
-- its answers are matched.

local wb = ...
local find, gsub, sub, upper, lower, format = string.find, string.gsub, string.sub, string.upper,
  string.lower, string.format
local type, ipairs, error, tostring, rawget = type, ipairs, error, tostring, rawget
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

-- The forms of "to be", for the relation of a claim that says what
-- something is ("the writes are strided": relation = wb.be ...).
wb.be = { "is", "are", "was", "were", "be", "been", "being", "becomes", "become", "remain",
          "remains", "stays", "stay" }

function wb.has(text, phrase)
  if type(text) ~= "string" or type(phrase) ~= "string" then
    error("wb.has(text, phrase): two strings expected", 2)
  end
  return has_words(" " .. words(text) .. " ", phrase)
end

-- The design rule is in C (grader_wb_design.c over grader_design*.c, the
-- private wb._judge): clauses read with an English grammar, claims (who does
-- what) and their contradictions, phrases in asserted clauses, negation,
-- near-by terms, misspellings.
-- judge(text, concepts [, q]) -> score, list, status, contra, evidence, info
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
    if status[i] == "found" then
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

local PADDING = "Most of what you wrote is not about this question (its subjects and " ..
  "objects are not the question's), and that earns nothing."

-- One line of what the grader read for a concept.
local function read_line(name, e)
  local roles = {}
  if e.subject ~= "" then roles[#roles + 1] = "subject: " .. e.subject end
  if e.relation ~= "" then roles[#roles + 1] = "relation: " .. e.relation end
  if e.object ~= "" then roles[#roles + 1] = "object: " .. e.object end
  local how = ""
  if e.how ~= "claim" and e.how ~= "phrase" and e.how ~= "" then how = " — " .. e.how end
  return "- " .. name .. ": \"" .. e.clause .. "\"" ..
    (#roles > 0 and " (" .. join(roles, "; ") .. ")" or "") .. how
end

-- design: score fraction, feedback naming every concept missed and why,
-- and what the grader read for each concept (the claims' evidence).
function graders.design(q, answer)
  local concepts = rawget(q, "concepts")
  local score, list, status, contra, evidence, info = judge(answer, concepts, q)
  local found, lines, read, claims = {}, {}, {}, {}
  for i, c in ipairs(concepts) do
    local name = concept_name(c, i)
    local fb = type(c) == "table" and rawget(c, "feedback")
    local why = fb and (". " .. fb) or "."
    local st = status[i]
    local e = evidence[i]
    if st == "found" then
      found[#found + 1] = name
    elseif st == "contradicted" then
      local own
      if contra[i] and contra[i] > 0 then
        local x = rawget(c, "contradicts")[contra[i]]
        own = type(x) == "table" and x.feedback
      end
      lines[#lines + 1] = "Contradicted: " .. name .. ". " ..
        (own or ("What you wrote says the opposite" .. why))
    elseif st == "negated" then
      lines[#lines + 1] = "Missing: " .. name ..
        " (you mention it only in a negated clause)" .. why
    elseif st == "unclaimed" then
      lines[#lines + 1] = "Missing: " .. name ..
        " (named, but not in a sentence that claims it)" .. why
    else
      lines[#lines + 1] = "Missing: " .. name .. why
    end
    if e then read[#read + 1] = read_line(name, e) end
    claims[#claims + 1] = {
      concept = name,
      points = type(c) == "table" and type(rawget(c, "points")) == "number" and rawget(c, "points") or 1,
      status = st, clause = e and e.clause or "", subject = e and e.subject or "",
      relation = e and e.relation or "", object = e and e.object or "", how = e and e.how or "",
    }
  end
  local text = join(lines, "\n")
  if #found > 0 then
    text = "Covered: " .. join(found, ", ") .. "." .. (text ~= "" and "\n" .. text or "")
  end
  if list then
    text = SENTENCES .. (text ~= "" and "\n" .. text or "")
  elseif info.clauses >= 2 and info.padding * 2 > info.clauses then
    text = PADDING .. "\n" .. text
  end
  if info.unread > 0 then
    text = text .. "\nOnly the first part of a long answer is read for claims (" ..
      info.unread .. " words with rubric terms were left unread)."
  end
  if #read > 0 then
    text = text .. "\nWhat the grader read:\n" .. join(read, "\n")
  end
  return score, text, claims
end

-- Attacks (pack check) ------------------------------------------------------
--
-- Answers built from a design question's own rubric, prompt, hints and
-- model answer, that must not earn the points: pack check grades each and
-- fails the question when one scores above a quarter (FORMAT.md lists them).

local FUNCTION_WORDS = { "the", "of", "is", "to", "and", "in", "with", "by", "for", "a", "that", "on" }
local FRAMES = { "My cat likes the %s.", "Bananas are %s on Sundays.",
                 "The weather was %s yesterday.", "Our neighbour paints %s every morning." }
local DENIALS = { "It is a myth that %s.", "It is false that %s.", "It is untrue that %s." }

local function strip(t) return (gsub(t, "%*", "")) end

local function add_terms(out, v)
  if type(v) == "string" then
    out[#out + 1] = strip(v)
  elseif type(v) == "table" then
    for _, x in ipairs(v) do
      if type(x) == "string" then out[#out + 1] = strip(x) end
    end
  end
end

-- The terms of a concept: its phrases, near groups and claims' slots.
local function concept_terms(c)
  local out = {}
  add_terms(out, rawget(c, "match"))
  local near = rawget(c, "near")
  if type(near) == "table" then
    for _, g in ipairs(near) do add_terms(out, g) end
  end
  local claims = rawget(c, "claims")
  if type(claims) == "table" then
    for _, cl in ipairs(claims) do
      if type(cl) == "table" then
        add_terms(out, rawget(cl, "subject"))
        add_terms(out, rawget(cl, "relation"))
        add_terms(out, rawget(cl, "object"))
      end
    end
  end
  return out
end

-- The first term of a claim slot (one written out in full when there is one).
local function first_term(v)
  if type(v) == "string" then return strip(v) end
  if type(v) ~= "table" then return nil end
  for _, x in ipairs(v) do
    if type(x) == "string" and not find(x, "*", 1, true) then return x end
  end
  return type(v[1]) == "string" and strip(v[1]) or nil
end

-- A clause as the middle of a sentence: first letter lower case (but not
-- an acronym), no final full stop.
local function lower_first(c)
  if find(c, "^%u%l") or find(c, "^A ") then return lower(sub(c, 1, 1)) .. sub(c, 2) end
  return c
end

local function inner(clause, lead)
  local c = lower_first(gsub(clause, "[%s%.;:,]+$", ""))
  if lead and lead ~= "" then c = lower_first(lead .. " " .. c) end
  return c
end

-- A sentence that takes back concept c's claim in clause e, as the grader
-- reads it (checked on its own); the first form when none is read so.
local function contradiction(e, c, q)
  local forms = { "It is false that " .. inner(e.clause, e.lead) .. ".",
                  "It is false that you should " .. inner(e.clause) .. ".",
                  "Do not " .. inner(e.clause) .. ".",
                  "It is not true that " .. inner(e.clause, e.lead) .. "." }
  for _, f in ipairs(forms) do
    local _, _, st = judge(f, { c }, q)
    if st[1] == "contradicted" then return f end
  end
  return forms[1]
end

-- Exchanges the first whole-word occurrences of a and b in text.
local function swap_words(text, a, b)
  if not a or not b or a == "" or b == "" or lower(a) == lower(b) then return nil end
  local pa = find(text, a, 1, true)
  local pb = find(text, b, 1, true)
  if not pa or not pb then return nil end
  if pa > pb then a, b, pa, pb = b, a, pb, pa end
  if pa + #a > pb then return nil end
  return sub(text, 1, pa - 1) .. b .. sub(text, pa + #a, pb - 1) .. a .. sub(text, pb + #b)
end

function graders.attacks(q)
  local concepts = rawget(q, "concepts")
  if type(concepts) ~= "table" then return {} end
  local out = {}
  local function attack(name, text)
    if text and text ~= "" then
      out[#out + 1] = { name = name, answer = text, report = rawget(q, "attacks") == "report" }
    end
  end
  local all, frames = {}, {}
  for i, c in ipairs(concepts) do
    if type(c) == "table" then
      local terms = concept_terms(c)
      for _, t in ipairs(terms) do all[#all + 1] = t end
      local claims = rawget(c, "claims")
      local x
      if type(claims) == "table" and type(claims[1]) == "table" then
        local cl, parts = claims[1], {}
        for _, slot in ipairs({ "subject", "relation", "object" }) do
          local t = first_term(rawget(cl, slot))
          if t then parts[#parts + 1] = t end
        end
        x = join(parts, " ")
      else
        x = join({ terms[1] or "", terms[2] or "", terms[3] or "" }, " ")
      end
      frames[#frames + 1] = format(FRAMES[(i - 1) % #FRAMES + 1], x)
    end
  end
  attack("the rubric's terms as a list", join(all, ", ") .. ".")
  local salad = {}
  for i, t in ipairs(all) do
    salad[#salad + 1] = (i == 1 and "The" or FUNCTION_WORDS[(i - 2) % #FUNCTION_WORDS + 1]) .. " " .. t
  end
  attack("the terms with function words", join(salad, " ") .. ".")
  attack("each concept's terms in nonsense frames", join(frames, " "))
  -- what the model answer claims, turned around
  local model = rawget(q, "model")
  local swapped, denied, asked, contra = {}, {}, {}, {}
  if type(model) == "string" then
    local _, _, status, _, evidence = judge(model, concepts, q)
    for i, c in ipairs(concepts) do
      local e = evidence[i]
      if status[i] == "found" and e and e.clause ~= "" then
        local cl = inner(e.clause, e.lead)
        local sw = swap_words(cl, e.s_word, e.o_word)
        if not sw and type(c) == "table" and type(rawget(c, "claims")) == "table" then
          local c1 = rawget(c, "claims")[1]
          if type(c1) == "table" then
            local s1, r1, o1 = first_term(rawget(c1, "subject")), first_term(rawget(c1, "relation")),
              first_term(rawget(c1, "object"))
            if s1 and r1 and o1 then sw = "the " .. o1 .. " " .. r1 .. " the " .. s1 end
          end
        end
        if sw then swapped[#swapped + 1] = upper(sub(sw, 1, 1)) .. sub(sw, 2) .. "." end
        denied[#denied + 1] = format(DENIALS[(i - 1) % #DENIALS + 1], cl)
        asked[#asked + 1] = "Is it true that " .. cl .. "?"
        contra[#contra + 1] = contradiction(e, c, q)
      end
    end
  end
  if #swapped > 0 then attack("each claim with its roles swapped", join(swapped, " ")) end
  if #denied > 0 then
    attack("each claim negated with words outside the negator list", join(denied, " "))
    attack("each claim asked as a question", join(asked, " "))
  end
  local prompt = rawget(q, "prompt")
  if type(prompt) == "string" then attack("the prompt echoed back", (gsub(prompt, "{[^}]*}", "N"))) end
  local hints = rawget(q, "hints")
  if type(hints) == "table" then
    local hs = {}
    for _, h in ipairs(hints) do
      if type(h) == "string" then hs[#hs + 1] = (gsub(h, "{[^}]*}", "N")) end
    end
    attack("the hints pasted back", join(hs, " "))
  end
  if type(model) == "string" and #contra > 0 then
    attack("the model answer followed by its own contradiction", model .. "\n" .. join(contra, " "))
  end
  return out
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
