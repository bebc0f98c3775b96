-- Argo CD health check for stepwise.dev/Rollout (argocd-cm key
-- resource.customizations.health.stepwise.dev_Rollout).
--
-- Stepwise computes status.phase as Argo Rollouts does, so this check trusts the phase once the
-- controller has observed the current spec, and maps it to Argo CD's health statuses:
--   Healthy -> Healthy, Progressing -> Progressing, Degraded -> Degraded,
--   Paused -> Suspended (a pause step, a blue-green's pause before the switch, a manual approval,
--   an inconclusive analysis).
-- Lua 5.1 (Argo CD runs gopher-lua); `obj` is the live Rollout.

local hs = {}
local st = obj.status

local function condition(reason)
  if st.conditions == nil then
    return nil
  end
  for _, c in ipairs(st.conditions) do
    if c.type == reason or (c.type == "Progressing" and c.reason == reason) then
      return c
    end
  end
  return nil
end

local function nonEmpty(s)
  return s ~= nil and s ~= ""
end

-- Until the controller has seen the current generation, status describes an older spec.
if st == nil or st.observedGeneration == nil then
  hs.status = "Progressing"
  hs.message = "Waiting for rollout spec update to be observed"
  return hs
end
local observed = tonumber(st.observedGeneration)
if observed == nil or obj.metadata.generation == nil or observed ~= obj.metadata.generation then
  hs.status = "Progressing"
  hs.message = "Waiting for rollout spec update to be observed"
  return hs
end

-- A promote cleared the pause conditions; the controller has not yet acknowledged it (its phase
-- still says Paused). A blue-green keeps controllerPause after its BlueGreenPause is promoted,
-- through the switch and post-promotion analysis, with a phase of their own: trusted below.
local pauses = st.pauseConditions
local paused = pauses ~= nil and table.getn(pauses) > 0
if st.controllerPause == true and not paused and st.phase == "Paused" then
  hs.status = "Progressing"
  hs.message = "Waiting for rollout to unpause"
  return hs
end

local phase = st.phase
if phase == "Healthy" then
  hs.status = "Healthy"
  hs.message = st.message or ""
  return hs
end

if phase == "Paused" then
  -- Waiting for a person (kubectl stepwise promote, an Argo CD action, an approval) or a timer.
  -- The pause reasons (CanaryPauseStep, BlueGreenPause, AwaitingApproval, InconclusiveAnalysisRun)
  -- are named so the Argo CD UI says what the rollout waits for.
  local parts = {}
  if nonEmpty(st.message) then
    table.insert(parts, st.message)
  end
  if paused then
    for _, p in ipairs(pauses) do
      if nonEmpty(p.reason) and p.reason ~= st.message then
        table.insert(parts, p.reason)
      end
    end
  end
  hs.status = "Suspended"
  if table.getn(parts) == 0 then
    hs.message = "Rollout is paused"
  else
    hs.message = "Rollout is paused: " .. table.concat(parts, ", ")
  end
  return hs
end

if phase == "Degraded" then
  hs.status = "Degraded"
  for _, reason in ipairs({ "InvalidSpec", "RolloutAborted", "ProgressDeadlineExceeded" }) do
    local c = condition(reason)
    if c ~= nil then
      hs.message = reason .. ": " .. (c.message or "")
      return hs
    end
  end
  hs.message = st.message or ""
  return hs
end

if phase == "Progressing" or phase == nil then
  hs.status = "Progressing"
  if nonEmpty(st.message) then
    hs.message = st.message
  else
    hs.message = "Waiting for rollout to finish"
  end
  return hs
end

hs.status = "Unknown"
hs.message = "unknown rollout phase " .. tostring(phase)
return hs
