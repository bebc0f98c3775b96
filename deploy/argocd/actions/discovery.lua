-- Which Stepwise actions Argo CD offers for a Rollout: each is enabled exactly when its action
-- (and `kubectl stepwise` for the same request) would write something, disabled when it would
-- refuse or have nothing to do. Same rules as src/cli/requests.ts.
local st = obj.status or {}

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
-- An approval step at or after the current one: a full promotion may not skip it.
local approvalAhead = false
for i, step in ipairs(steps_list) do
  if i - 1 >= (index or 0) and step.approval ~= nil then
    approvalAhead = true
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
  approvalAhead = true
end
local midSteps = index ~= nil and index < steps
local paused = len(st.pauseConditions) > 0
local observed = st.observedGeneration ~= nil
  and obj.metadata.generation ~= nil
  and tonumber(st.observedGeneration) == obj.metadata.generation
local fullyPromoted = st.stableRS ~= nil and st.stableRS ~= "" and st.stableRS == st.currentPodHash
local aborted = st.abort == true
local awaitingApproval = false
local pausedByUser = false
for _, c in ipairs(st.pauseConditions or {}) do
  if c.reason == "AwaitingApproval" then
    awaitingApproval = true
  elseif c.reason == "PausedByUser" then
    pausedByUser = true
  end
end
local gitPaused = obj.spec.paused == true
-- Healthy as `kubectl stepwise` reads it (a cleared pause not yet acknowledged says Paused).
local healthy = st.phase == "Healthy"
local done = fullyPromoted and not paused and not midSteps and observed

local actions = {}
-- promote: resume a pause or skip the current step (not while aborted, paused in Git or by a
-- person, or waiting for approval: people approve, a promotion does not count).
actions["promote"] = {
  ["disabled"] = gitPaused or aborted or awaitingApproval or pausedByUser
    or not (paused or midSteps),
  ["iconClass"] = "fa fa-fw fa-forward",
}
-- promote-full: skip to the end of an update still under way, but never past an approval step.
actions["promote-full"] = {
  ["disabled"] = gitPaused or done or st.promoteFull == true or approvalAhead,
  ["iconClass"] = "fa fa-fw fa-angle-double-right",
}
-- abort: only while an update is under way, and once.
actions["abort"] = {
  ["disabled"] = aborted or (fullyPromoted and observed and healthy),
  ["iconClass"] = "fa fa-fw fa-times-circle",
}
-- retry: only an aborted update.
actions["retry"] = {
  ["disabled"] = not aborted,
  ["iconClass"] = "fa fa-fw fa-redo-alt",
}
return actions
