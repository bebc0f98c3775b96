// A process's CPU time and memory from /proc, for the benches that weigh a controller process
// (memory, idle-cpu). Linux only, as the benches are.
import { readdir, readFile } from 'node:fs/promises';

/** USER_HZ: /proc/<pid>/stat counts CPU time in ticks of 10 ms on every Linux the benches run
 *  on (`getconf CLK_TCK`). */
const TICKS_PER_SECOND = 100;

export interface CpuTime {
  readonly userSeconds: number;
  readonly systemSeconds: number;
}

/**
 * utime and stime (fields 14 and 15) of a /proc/<pid>/stat line. The command name (field 2) is
 * in parentheses and may itself hold spaces and parentheses, so fields are counted from the
 * last ')'.
 */
export function parseProcStat(stat: string): CpuTime {
  const close = stat.lastIndexOf(')');
  const fields = close < 0 ? [] : stat.slice(close + 2).split(' ');
  // After the name: state is field 3, so utime (14) and stime (15) are the 12th and 13th here.
  const utime = Number(fields[11]);
  const stime = Number(fields[12]);
  if (!Number.isInteger(utime) || !Number.isInteger(stime)) {
    throw new Error(`not a /proc/<pid>/stat line: ${stat.slice(0, 80)}`);
  }
  return { userSeconds: utime / TICKS_PER_SECOND, systemSeconds: stime / TICKS_PER_SECOND };
}

/** User plus system CPU time of a running process, in seconds. */
export async function cpuSeconds(pid: number | undefined): Promise<number> {
  if (pid === undefined) throw new Error('no process id: the process did not start');
  const t = parseProcStat(await readFile(`/proc/${pid}/stat`, 'utf8'));
  return t.userSeconds + t.systemSeconds;
}

/** VmRSS and VmHWM (the peak RSS since the process started), in kB, of a /proc/<pid>/status;
 *  NaN for a figure it lacks. */
export function parseProcStatus(status: string): { rssKb: number; hwmKb: number } {
  const kb = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+) kB$`, 'm').exec(status)?.[1] ?? NaN);
  return { rssKb: kb('VmRSS'), hwmKb: kb('VmHWM') };
}

/** VmRSS and VmHWM of a process (NaN once it has gone). */
export async function procStatus(
  pid: number | undefined,
): Promise<{ rssKb: number; hwmKb: number }> {
  return parseProcStatus(await readFile(`/proc/${pid}/status`, 'utf8').catch(() => ''));
}

/** Voluntary plus involuntary context switches of one thread's /proc/<pid>/task/<tid>/status:
 *  how often it was scheduled off the CPU, i.e. about how often it woke. 0 for a figure it lacks. */
export function parseContextSwitches(status: string): number {
  const count = (name: string) =>
    Number(new RegExp(`^${name}:\\s+(\\d+)$`, 'm').exec(status)?.[1] ?? 0);
  return count('voluntary_ctxt_switches') + count('nonvoluntary_ctxt_switches');
}

/** Context switches of all a process's threads (a Go runtime's or Node's helper threads wake
 *  apart from the main one). A thread that ends between listing and reading counts 0. */
export async function contextSwitches(pid: number | undefined): Promise<number> {
  if (pid === undefined) throw new Error('no process id: the process did not start');
  const tasks = await readdir(`/proc/${pid}/task`);
  const counts = await Promise.all(
    tasks.map(async (tid) =>
      parseContextSwitches(
        await readFile(`/proc/${pid}/task/${tid}/status`, 'utf8').catch(() => ''),
      ),
    ),
  );
  return counts.reduce((a, b) => a + b, 0);
}
