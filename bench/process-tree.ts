import fs from 'node:fs';

/**
 * Every process under `root` (root, children, grandchildren, …) with its CPU ticks (user + system, 10 ms each), from
 * /proc. A process that exits while it is read is left out.
 */
export function processTree(root: number): Array<{ pid: number; ticks: number }> {
  const all = new Map<number, { parent: number; ticks: number }>();
  for (const id of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = fs.readFileSync(`/proc/${id}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      all.set(Number(id), { parent: Number(fields[1]), ticks: Number(fields[11]) + Number(fields[12]) });
    } catch {
      // the process ended while we looked
    }
  }
  const under = (id: number) => {
    for (let current = id, depth = 0; current > 1 && depth < 12; depth++) {
      if (current === root) return true;
      current = all.get(current)?.parent ?? 0;
    }
    return false;
  };
  return [...all].filter(([id]) => under(id)).map(([pid, { ticks }]) => ({ pid, ticks }));
}

/** CPU time (ms) a process and all its descendants (cluster workers, nginx's master and workers) have used so far. */
export function treeCpuMs(root: number): number {
  return processTree(root).reduce((sum, { ticks }) => sum + ticks * 10, 0);
}

/** The proportional memory (PSS, MB) of a process and all its descendants: shared pages counted once. */
export function treeMemoryMb(root: number): number {
  let pssKb = 0;
  for (const { pid } of processTree(root))
    try {
      pssKb += Number(/Pss:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
    } catch {
      // the process ended while we looked
    }
  return pssKb / 1024;
}
