-- promote: resume a pause, or skip the current step when the rollout is not paused; exactly what
-- `kubectl stepwise promote NAME` writes (src/cli/requests.ts decidePromote). Changes status only
-- (Argo CD sends a status-only change to the /status subresource), never spec.
local st = obj.status or {}
local name = obj.metadata.name or ""

local function len(list)
  if list == nil then
    return 0
  end
  return table.getn(list)
end

local steps = 0
if obj.spec.strategy ~= nil and obj.spec.strategy.canary ~= nil then
  steps = len(obj.spec.strategy.canary.steps)
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
if st.abort == true then
  error("rollout '" .. name .. "' is aborted; run the retry action to restart the update or "
    .. "promote-full to skip to the end", 0)
end
local awaitingApproval = false
local pausedByUser = false
for _, c in ipairs(st.pauseConditions or {}) do
  if c.reason == "AwaitingApproval" then
    awaitingApproval = true
  elseif c.reason == "PausedByUser" then
    pausedByUser = true
  end
end
if pausedByUser then
  error("rollout '" .. name .. "' was paused with 'kubectl stepwise pause'; use 'kubectl "
    .. "stepwise resume " .. name .. "'", 0)
end
if awaitingApproval then
  -- An approval step counts people, not promotions: a cleared pause would only come back.
  local where = "at step " .. tostring((index or 0) + 1)
  if obj.spec.strategy ~= nil and obj.spec.strategy.blueGreen ~= nil then
    where = "before the switch"
  end
  error("rollout '" .. name .. "' waits for approval " .. where .. "; approve it with 'kubectl stepwise approve " .. name .. "' (recorded with your name); "
    .. "only the break-glass right passes it without its approvers ('kubectl stepwise approve "
    .. name .. " --break-glass')", 0)
end
if paused then
  obj.status.pauseConditions = nil
  return obj
end
if midSteps then
  obj.status.currentStepIndex = index + 1
  return obj
end
if not observed then
  error("the controller has not yet observed the latest spec of rollout '" .. name
    .. "' (generation " .. tostring(obj.metadata.generation) .. "); try again in a moment", 0)
end
if fullyPromoted then
  -- already fully promoted: nothing to write
  return obj
end
error("rollout '" .. name .. "' is not paused and has no step left to skip; run promote-full "
  .. "to finish the update", 0)
