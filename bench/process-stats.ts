import { readFileSync, writeFileSync } from 'node:fs';

// /proc/<pid>/stat counts CPU time in clock ticks; USER_HZ is 100 on every Linux Node runs on.
const clockTicksPerSecond = 100;

/** User plus system CPU time the process has used so far, in seconds (Linux /proc). */
export function readCpuSeconds(pid: number): number {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  // The command name (field 2) may hold spaces and parentheses; the fields after its last ")" do not.
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  // utime and stime are fields 14 and 15 of the whole line, 12 and 13 after the name.
  const userTicks = Number(fields[11]);
  const systemTicks = Number(fields[12]);
  return (userTicks + systemTicks) / clockTicksPerSecond;
}

/** The resident set size now (`VmRSS`) and its peak so far (`VmHWM`), in bytes. */
export function readMemory(pid: number): { rssBytes: number; peakRssBytes: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kibibytesOf = (name: string) => {
    const match = new RegExp(`^${name}:\\s+(\\d+) kB`, 'm').exec(status);
    return match === null ? 0 : Number(match[1]) * 1024;
  };
  return { rssBytes: kibibytesOf('VmRSS'), peakRssBytes: kibibytesOf('VmHWM') };
}

/**
 * Resets the process's peak RSS to its current RSS, so a later `VmHWM` is the peak of the load
 * alone and not of start-up. Returns false where the kernel refuses (then sampling is all there is).
 */
export function resetPeakRss(pid: number): boolean {
  try {
    writeFileSync(`/proc/${pid}/clear_refs`, '5');
    return true;
  } catch {
    return false;
  }
}

/**
 * CPU time the whole machine has spent busy, and what the hypervisor took from it (steal), in
 * seconds since boot, from the first line of /proc/stat: user nice system idle iowait irq softirq steal.
 */
export function readMachineCpuSeconds(): { busySeconds: number; stealSeconds: number } {
  const fields = (readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '')
    .trim()
    .split(/\s+/)
    .slice(1)
    .map(Number);
  const [user = 0, nice = 0, system = 0, , , irq = 0, softirq = 0, steal = 0] = fields;
  return {
    busySeconds: (user + nice + system + irq + softirq) / clockTicksPerSecond,
    stealSeconds: steal / clockTicksPerSecond,
  };
}
