-- retry: start the steps of an aborted update again; exactly what `kubectl stepwise retry NAME`
-- writes (src/cli/requests.ts decideRetry). Changes status only, never spec.
local name = obj.metadata.name or ""

if obj.status == nil or obj.status.abort ~= true then
  error("rollout '" .. name .. "' is not aborted; retry only restarts an aborted update", 0)
end
obj.status.abort = false
return obj
