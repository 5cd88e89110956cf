/**
 * CPU time of the servers under load, read from /proc: on a shared machine requests per second
 * swing with other work (the hello baseline alone from 29k to 65k between rounds of one run),
 * while the CPU a server spends on each request does not (issue 26 item 9). Linux only.
 */
import fs from 'node:fs';
import os from 'node:os';

/** The kernel's clock ticks per second (USER_HZ), in which /proc counts CPU time. */
export const clockTicks = 100;

/** CPU seconds (user + system) of every process in a process group; null off Linux. */
export function groupCpuSeconds(groupId: number | undefined): number | null {
  if (groupId === undefined || os.platform() !== 'linux') return null;
  let ticks = 0;
  for (const entry of fs.readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const stat = fs.readFileSync(`/proc/${entry}/stat`, 'utf8');
      // Fields after the command name (which may hold spaces) in parentheses.
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      if (Number(fields[2]) !== groupId) continue;
      ticks += Number(fields[11]) + Number(fields[12]);
    } catch {
      // The process ended while we read it.
    }
  }
  return ticks / clockTicks;
}
