/**
 * Runs Argo CD Lua (health checks, resource actions, action discovery) with a real Lua 5.1
 * interpreter (test/lua/install.sh), the way Argo CD runs it: the object is handed over as the
 * global `obj` (a Lua table decoded from the object's JSON), the script is loaded as a chunk
 * (`loadstring`) and called, and what it returns is read back as JSON.
 *
 * Argo CD's VM (util/lua/lua.go, gopher-lua) opens only the base, package and table libraries
 * and a reduced `os`; the sandbox here gives the script the base functions and `table` and
 * hides the string methods (`("x"):sub`), so a script that leans on a library Argo CD does not
 * load fails here too.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

const HERE = dirname(fileURLToPath(import.meta.url));

/** Argo CD's health statuses (`isValidHealthStatusCode`). */
export const HEALTH_STATUSES = [
  'Healthy',
  'Progressing',
  'Degraded',
  'Suspended',
  'Missing',
  'Unknown',
] as const;

export interface Health {
  readonly status: string;
  readonly message?: string;
}

export interface DiscoveredAction {
  readonly disabled?: boolean;
  readonly iconClass?: string;
}

/** What one run of a script gave: its return value, or the error it raised. */
export type LuaOutcome = { ok: true; value: unknown } | { ok: false; error: string };

let cached: { lua: string } | { skip: string } | undefined;

/**
 * The interpreter installed by test/lua/install.sh (run on first use; it is quick when the
 * interpreter is already in the cache), or the reason it could not be installed.
 */
export function findLua(): { lua: string } | { skip: string } {
  if (cached) return cached;
  try {
    const out = execFileSync('bash', [join(HERE, 'install.sh')], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const lua = out.trim().split('\n').at(-1) ?? '';
    cached = lua ? { lua } : { skip: 'test/lua/install.sh printed no interpreter path' };
  } catch (err) {
    const stderr = (err as { stderr?: unknown }).stderr;
    const why = (typeof stderr === 'string' && stderr.trim() ? stderr : String(err))
      .trim()
      .split('\n')
      .join('; ');
    cached = { skip: `Lua 5.1 could not be installed (test/lua/install.sh): ${why}` };
  }
  return cached;
}

function lua(): string {
  const found = findLua();
  if ('skip' in found) throw new Error(found.skip);
  return found.lua;
}

// ---- JS value -> Lua source -------------------------------------------------------------

/** A Lua string literal: printable ASCII as is, every other byte as a 3-digit `\ddd` escape. */
export function luaString(s: string): string {
  let out = '"';
  for (const b of Buffer.from(s, 'utf8')) {
    if (b === 0x22) out += '\\"';
    else if (b === 0x5c) out += '\\\\';
    else if (b >= 0x20 && b < 0x7f) out += String.fromCharCode(b);
    else out += `\\${String(b).padStart(3, '0')}`;
  }
  return `${out}"`;
}

/**
 * A Lua expression for a JSON value, as Argo CD decodes one: objects become tables with string
 * keys, arrays tables indexed from 1, JSON null nil (so a key whose value is null is absent).
 */
export function luaValue(v: unknown): string {
  if (v === null || v === undefined) return 'nil';
  if (typeof v === 'boolean') return v ? 'true' : 'false';
  if (typeof v === 'number') {
    if (!Number.isFinite(v)) throw new Error(`cannot hand ${v} to Lua`);
    return `(${String(v)})`;
  }
  if (typeof v === 'string') return luaString(v);
  if (v instanceof Date) return luaString(v.toISOString());
  if (Array.isArray(v)) return `{${v.map((e, i) => `[${i + 1}]=${luaValue(e)}`).join(',')}}`;
  if (typeof v === 'object') {
    const fields = Object.entries(v as Record<string, unknown>)
      .filter(([, e]) => e !== undefined && e !== null)
      .map(([k, e]) => `[${luaString(k)}]=${luaValue(e)}`);
    return `{${fields.join(',')}}`;
  }
  throw new Error(`cannot hand a ${typeof v} to Lua`);
}

// ---- the Lua side -----------------------------------------------------------------------

/** Runs each script on each object in a fresh sandbox and prints one JSON array of outcomes. */
const PRELUDE = String.raw`
local format, gsub, byte, concat = string.format, string.gsub, string.byte, table.concat
local huge, floor = math.huge, math.floor
local write = io.write
local stringMeta = debug.getmetatable("")

local escapes = { ['"'] = '\\"', ['\\'] = '\\\\', ['\n'] = '\\n', ['\r'] = '\\r', ['\t'] = '\\t' }
local function encodeString(s)
  return '"' .. (gsub(s, '[%c"\\]', function(c)
    return escapes[c] or format('\\u%04x', byte(c))
  end)) .. '"'
end

local encode
local function isArray(t)
  local n = 0
  for k in pairs(t) do
    if type(k) ~= "number" or k < 1 or k ~= floor(k) then return false end
    n = n + 1
  end
  for i = 1, n do
    if t[i] == nil then return false end
  end
  return n > 0
end
encode = function(v, seen)
  local t = type(v)
  if v == nil then return "null" end
  if t == "boolean" then return v and "true" or "false" end
  if t == "number" then
    if v ~= v or v == huge or v == -huge then error("cannot encode " .. tostring(v) .. " as JSON") end
    return format("%.17g", v)
  end
  if t == "string" then return encodeString(v) end
  if t ~= "table" then error("cannot encode a " .. t .. " as JSON") end
  if seen[v] then error("cannot encode a table that contains itself") end
  seen[v] = true
  local parts = {}
  if isArray(v) then
    for i = 1, table.getn(v) do parts[i] = encode(v[i], seen) end
    seen[v] = nil
    return "[" .. concat(parts, ",") .. "]"
  end
  for k, e in pairs(v) do
    if type(k) ~= "string" and type(k) ~= "number" then error("cannot encode a " .. type(k) .. " key as JSON") end
    parts[table.getn(parts) + 1] = encodeString(tostring(k)) .. ":" .. encode(e, seen)
  end
  seen[v] = nil
  -- An empty table is written {}; the caller restores [] where the input had an array, as
  -- Argo CD does after a script returns.
  return "{" .. concat(parts, ",") .. "}"
end

local BASE = { "assert", "error", "ipairs", "next", "pairs", "pcall", "select", "tonumber",
  "tostring", "type", "unpack", "xpcall", "rawequal", "rawget", "rawset", "setmetatable",
  "getmetatable", "_VERSION" }
local function sandbox(o)
  local env = {}
  for _, k in ipairs(BASE) do env[k] = _G[k] end
  env.table = { insert = table.insert, remove = table.remove, concat = table.concat,
    sort = table.sort, getn = table.getn, maxn = table.maxn }
  env.print = function(...) io.stderr:write(concat({ ... }, "\t"), "\n") end
  env._G = env
  env.obj = o
  return env
end

local function run(name, script, o)
  local f, err = loadstring(script, "=" .. name)
  if f == nil then return '{"ok":false,"error":' .. encodeString(tostring(err)) .. '}' end
  setfenv(f, sandbox(o))
  local index = stringMeta.__index
  stringMeta.__index = nil -- Argo CD does not open the string library
  local ok, res = pcall(f)
  stringMeta.__index = index
  if not ok then return '{"ok":false,"error":' .. encodeString(tostring(res)) .. '}' end
  local encoded, value = pcall(encode, res, {})
  if not encoded then return '{"ok":false,"error":' .. encodeString(tostring(value)) .. '}' end
  return '{"ok":true,"value":' .. value .. '}'
end
`;

/**
 * Runs `script` once per object (one interpreter for all of them, a fresh sandbox and a fresh
 * `obj` for each run) and returns what each run returned or raised.
 */
export function runLuaMany(
  script: string,
  objects: readonly unknown[],
  name = 'script',
): LuaOutcome[] {
  const program = [
    PRELUDE,
    `local script = ${luaString(script)}`,
    'local results = {}',
    ...objects.map(
      (o) => `results[table.getn(results) + 1] = run(${luaString(name)}, script, ${luaValue(o)})`,
    ),
    'write("[" .. concat(results, ",") .. "]\\n")',
  ].join('\n');
  const res = spawnSync(lua(), ['-'], {
    input: program,
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  if (res.error) throw res.error;
  if (res.status !== 0) {
    throw new Error(`lua5.1 exited with ${res.status ?? res.signal}: ${res.stderr.trim()}`);
  }
  const outcomes = JSON.parse(res.stdout) as LuaOutcome[];
  return outcomes.map((o, i) =>
    o.ok ? { ok: true, value: restoreEmpty(objects[i], o.value) } : o,
  );
}

export function runLua(script: string, obj: unknown, name = 'script'): LuaOutcome {
  const [outcome] = runLuaMany(script, [obj], name);
  if (!outcome) throw new Error('lua5.1 returned no result');
  return outcome;
}

function value(outcome: LuaOutcome, what: string): unknown {
  if (!outcome.ok) throw new Error(`${what} raised an error: ${outcome.error}`);
  return outcome.value;
}

/** A health check's verdict; throws when the script fails or returns no valid status. */
export function health(script: string, obj: unknown): Health {
  const hs = value(runLua(script, obj, 'health.lua'), 'health.lua') as Health | null;
  if (!hs || !(HEALTH_STATUSES as readonly string[]).includes(hs.status)) {
    throw new Error(`health.lua returned no valid health status: ${JSON.stringify(hs)}`);
  }
  return hs;
}

/** An action's result: the object it returns (throws with the script's error when it raises). */
export function action(script: string, obj: unknown, name = 'action.lua'): unknown {
  return value(runLua(script, obj, name), name);
}

/** discovery.lua's table of actions. */
export function discovery(script: string, obj: unknown): Record<string, DiscoveredAction> {
  return value(runLua(script, obj, 'discovery.lua'), 'discovery.lua') as Record<
    string,
    DiscoveredAction
  >;
}

/**
 * Lua cannot tell an empty array from an empty object; like Argo CD after an action, an empty
 * table where the input held an empty array (or an array) is given back as an array.
 */
export function restoreEmpty(before: unknown, after: unknown): unknown {
  if (Array.isArray(before)) {
    if (isEmptyObject(after)) return [];
    if (Array.isArray(after)) return after.map((e, i) => restoreEmpty(before[i], e));
    return after;
  }
  if (isObject(before) && isObject(after)) {
    return Object.fromEntries(
      Object.entries(after).map(([k, v]) => [k, restoreEmpty(before[k], v)]),
    );
  }
  return after;
}

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function isEmptyObject(v: unknown): boolean {
  return isObject(v) && Object.keys(v).length === 0;
}

/**
 * RFC 7386 JSON merge patch from `before` to `after`, as Argo CD computes one from the live
 * object and an action's result (jsonpatch.CreateMergePatch): removed keys are null, objects
 * are diffed key by key, anything else (arrays included) is replaced whole.
 */
export function createMergePatch(before: unknown, after: unknown): unknown {
  if (!isObject(before) || !isObject(after)) return after;
  const patch: Record<string, unknown> = {};
  for (const key of Object.keys(before)) {
    if (!(key in after)) patch[key] = null;
  }
  for (const [key, next] of Object.entries(after)) {
    const prev = before[key];
    if (isObject(prev) && isObject(next)) {
      const sub = createMergePatch(prev, next);
      if (isObject(sub) && Object.keys(sub).length > 0) patch[key] = sub;
    } else if (!deepEqual(prev, next)) {
      patch[key] = next;
    }
  }
  return patch;
}

function deepEqual(a: unknown, b: unknown): boolean {
  if (a === b) return true;
  if (Array.isArray(a) && Array.isArray(b)) {
    return a.length === b.length && a.every((e, i) => deepEqual(e, b[i]));
  }
  if (isObject(a) && isObject(b)) {
    const ka = Object.keys(a);
    return ka.length === Object.keys(b).length && ka.every((k) => k in b && deepEqual(a[k], b[k]));
  }
  return false;
}

/**
 * What Argo CD sends after an action (server/application/application.go patchResource): the
 * merge patch from the live object to the result, split into the part for the /status
 * subresource and the rest (undefined when empty).
 */
export function splitStatusPatch(
  live: unknown,
  result: unknown,
): { statusPatch?: { status: unknown }; otherPatch?: Record<string, unknown> } {
  const patch = createMergePatch(live, result);
  if (!isObject(patch)) throw new Error('an action must return an object');
  const { status, ...rest } = patch;
  return {
    ...(status !== undefined ? { statusPatch: { status } } : {}),
    ...(Object.keys(rest).length > 0 ? { otherPatch: rest } : {}),
  };
}

/** RFC 7386: `patch` applied to `target` (null deletes a key; objects merge; the rest replaces). */
export function applyMergePatch(target: unknown, patch: unknown): unknown {
  if (!isObject(patch)) return patch;
  const out: Record<string, unknown> = isObject(target) ? { ...target } : {};
  for (const [key, v] of Object.entries(patch)) {
    if (v === null) delete out[key];
    else out[key] = applyMergePatch(out[key], v);
  }
  return out;
}
