/**
 * What a process and its descendants are doing, read from Linux's /proc:
 * who they are and how much CPU time each has used. Tests use it to show
 * that a stopped query really stopped (no child left spinning).
 */

/** One process as /proc/<pid>/stat describes it. */
export interface ProcessStat {
  /** Its id. */
  pid: number;
  /** Its parent's id. */
  ppid: number;
  /** R running, S sleeping, Z zombie, … */
  state: string;
  /** CPU time used in user and kernel mode, in clock ticks (1/100 s on Linux). */
  ticks: number;
}

/** Clock ticks per second of /proc's CPU times (USER_HZ, 100 on Linux). */
export const TICKS_PER_SECOND = 100;

/** The stat of `pid`, or undefined when it no longer exists. */
export function readStat(pid: number): ProcessStat | undefined {
  let text: string;
  try {
    text = Deno.readTextFileSync(`/proc/${pid}/stat`);
  } catch {
    return undefined;
  }
  // The command name is in parentheses and may hold spaces or parentheses itself.
  const fields = text.slice(text.lastIndexOf(")") + 2).split(" ");
  return {
    pid,
    ppid: Number(fields[1]),
    state: fields[0],
    ticks: Number(fields[11]) + Number(fields[12]),
  };
}

/** `root` and every process below it, now. */
export function processTree(root: number): ProcessStat[] {
  const all: ProcessStat[] = [];
  for (const entry of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(entry.name)) continue;
    const stat = readStat(Number(entry.name));
    if (stat !== undefined) all.push(stat);
  }
  const tree = all.filter((stat) => stat.pid === root);
  for (let index = 0; index < tree.length; index++) {
    tree.push(...all.filter((stat) => stat.ppid === tree[index].pid));
  }
  return tree;
}

/** CPU ticks used by `root`'s tree over a window, per process. */
export interface TreeUsage {
  /** Ticks used in the window by all of them. */
  total: number;
  /** Ticks per process alive at the window's end (a process born in the window counts whole). */
  byPid: Map<number, number>;
  /** The tree at the window's end. */
  after: ProcessStat[];
}

/**
 * Measures the CPU time `root`'s tree uses over `ms`. A process that ended
 * during the window is left out (its last ticks cannot be read).
 */
export async function treeUsage(root: number, ms: number): Promise<TreeUsage> {
  const before = new Map(processTree(root).map((stat) => [stat.pid, stat.ticks]));
  await new Promise((resolve) => setTimeout(resolve, ms));
  const after = processTree(root);
  const byPid = new Map<number, number>();
  for (const stat of after) byPid.set(stat.pid, stat.ticks - (before.get(stat.pid) ?? 0));
  let total = 0;
  for (const used of byPid.values()) total += used;
  return { total, byPid, after };
}
