-- abort: send the stable back to full and the canary to zero (phase Degraded until retry);
-- exactly what `kubectl stepwise abort NAME` writes (src/cli/requests.ts decideAbort). Changes
-- status only, never spec.
local st = obj.status or {}
local name = obj.metadata.name or ""

local observed = st.observedGeneration ~= nil
  and obj.metadata.generation ~= nil
  and tonumber(st.observedGeneration) == obj.metadata.generation
local fullyPromoted = st.stableRS ~= nil and st.stableRS ~= "" and st.stableRS == st.currentPodHash
-- Healthy as `kubectl stepwise` reads it (a cleared pause not yet acknowledged says Paused).
local healthy = st.phase == "Healthy"

if st.abort == true then
  -- already aborted: nothing to write
  return obj
end
if fullyPromoted and observed and healthy then
  error("rollout '" .. name .. "' is fully promoted; there is no update in progress to abort", 0)
end
if obj.status == nil then
  obj.status = {}
end
obj.status.abort = true
return obj
