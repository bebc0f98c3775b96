/**
 * What both dashboard servers (the plugin's on loopback, the cluster's with sign-in) answer
 * with, and how they read an action: responses carry the security headers, bodies are bounded,
 * and an action's JSON is checked field by field before anything acts on it.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import {
  ACTION_INPUTS,
  ACTION_NAMES,
  MAX_INPUT_LENGTH,
  type ActionInputName,
  type ActionName,
  type ActionRequest,
} from '../model/wire.ts';
import { SECURITY_HEADERS } from './security.ts';

export const MAX_BODY = 4096;
export const NAME = /^[a-z0-9]([-a-z0-9.]{0,251}[a-z0-9])?$/;

export const ACTION_SHAPE = `expected {namespace, name, action, inputs?} with inputs among ${ACTION_INPUTS.join(', ')}, each at most ${MAX_INPUT_LENGTH} characters`;

export function send(
  res: ServerResponse,
  status: number,
  type: string,
  body: string,
  headers: Readonly<Record<string, string>> = SECURITY_HEADERS,
): void {
  res.writeHead(status, { ...headers, 'Content-Type': `${type}; charset=utf-8` });
  res.end(body);
}

export function json(res: ServerResponse, status: number, body: object): void {
  send(res, status, 'application/json', JSON.stringify(body));
}

/** The body as text; undefined when it is larger than `max`. */
export async function readBody(req: IncomingMessage, max = MAX_BODY): Promise<string | undefined> {
  let size = 0;
  const chunks: Buffer[] = [];
  for await (const chunk of req) {
    size += (chunk as Buffer).length;
    if (size > max) return undefined;
    chunks.push(chunk as Buffer);
  }
  return Buffer.concat(chunks).toString('utf8');
}

export function parseAction(text: string): ActionRequest | undefined {
  let v: unknown;
  try {
    v = JSON.parse(text);
  } catch {
    return undefined;
  }
  if (typeof v !== 'object' || v === null) return undefined;
  const { namespace, name, action, inputs } = v as Record<string, unknown>;
  if (typeof namespace !== 'string' || !NAME.test(namespace)) return undefined;
  if (typeof name !== 'string' || !NAME.test(name)) return undefined;
  if (!ACTION_NAMES.includes(action as ActionName)) return undefined;
  if (inputs === undefined) return { namespace, name, action: action as ActionName };
  const given = parseInputs(inputs);
  return given === undefined
    ? undefined
    : { namespace, name, action: action as ActionName, inputs: given };
}

/** Known names, string values within MAX_INPUT_LENGTH; anything else refuses the request. */
function parseInputs(v: unknown): ActionRequest['inputs'] {
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return undefined;
  const out: Partial<Record<ActionInputName, string>> = {};
  for (const [key, value] of Object.entries(v)) {
    if (!ACTION_INPUTS.includes(key as ActionInputName)) return undefined;
    if (typeof value !== 'string' || value.length > MAX_INPUT_LENGTH) return undefined;
    out[key as ActionInputName] = value;
  }
  return out;
}
