-- promote-full: skip every remaining step, pause and analysis; exactly what
-- `kubectl stepwise promote NAME --full` writes (src/cli/requests.ts decidePromote). Changes
-- status only, never spec.
local st = obj.status or {}
local name = obj.metadata.name or ""

local function len(list)
  if list == nil then
    return 0
  end
  return table.getn(list)
end

local steps = 0
local steps_list = {}
if obj.spec.strategy ~= nil and obj.spec.strategy.canary ~= nil then
  steps = len(obj.spec.strategy.canary.steps)
  steps_list = obj.spec.strategy.canary.steps or {}
end
local index = st.currentStepIndex
local midSteps = index ~= nil and index < steps
local paused = len(st.pauseConditions) > 0
local observed = st.observedGeneration ~= nil
  and obj.metadata.generation ~= nil
  and tonumber(st.observedGeneration) == obj.metadata.generation
local fullyPromoted = st.stableRS ~= nil and st.stableRS ~= "" and st.stableRS == st.currentPodHash

if obj.spec.paused == true then
  error("rollout '" .. name .. "' is paused in Git (spec.paused: true) and cannot be promoted "
    .. "from an action; set spec.paused to false in Git", 0)
end
if fullyPromoted and not paused and not midSteps and observed then
  -- already fully promoted: nothing to write
  return obj
end
if st.promoteFull == true then
  -- already being fully promoted
  return obj
end
-- The API server refuses to skip an approval step (deploy/approvals/status-policy.yaml).
local from = index or 0
for i, step in ipairs(steps_list) do
  if i - 1 >= from and step.approval ~= nil then
    error("rollout '" .. name .. "' has an approval step ahead (step " .. tostring(i)
      .. "), which a full promotion may not skip; approve it with 'kubectl stepwise approve "
      .. name .. "' when the rollout waits there (without its approvers only with the "
      .. "break-glass right: 'kubectl stepwise approve " .. name .. " --break-glass')", 0)
  end
end
-- A blue-green's approval gate before the switch (index 0), until the controller has passed it
-- (status.currentStepIndex 0 -> 1), as the status policy reads it (src/cli/requests.ts
-- approvalAhead).
local function blueGreenGateAhead()
  local bg = obj.spec.strategy ~= nil and obj.spec.strategy.blueGreen or nil
  return bg ~= nil and bg.approval ~= nil and (st.currentStepIndex or 0) <= 0
end
if blueGreenGateAhead() then
  error("rollout '" .. name .. "' has an approval gate ahead (before the switch), which a full "
    .. "promotion may not skip; approve it with 'kubectl stepwise approve " .. name .. "' when the "
    .. "rollout waits there (without its approvers only with the break-glass right: 'kubectl "
    .. "stepwise approve " .. name .. " --break-glass')", 0)
end
if obj.status == nil then
  obj.status = {}
end
obj.status.promoteFull = true
obj.status.pauseConditions = nil
return obj
