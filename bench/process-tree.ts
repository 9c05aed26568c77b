import fs from 'node:fs';
import path from 'node:path';

/**
 * Every process under `root` (root, children, grandchildren, …) with its CPU ticks (user + system, its own and its
 * ended children's, 10 ms each), from /proc. A process that exits while it is read is left out.
 */
export function processTree(root: number): Array<{ pid: number; ticks: number }> {
  const all = new Map<number, { parent: number; ticks: number }>();
  for (const id of fs.readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const stat = fs.readFileSync(`/proc/${id}/stat`, 'utf8');
      const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
      // utime + stime, and cutime + cstime: what its children that ended used (nginx's workers replaced by a
      // reload are reaped by the master), so the tree's total never drops when a process in it ends.
      const ticks = Number(fields[11]) + Number(fields[12]) + Number(fields[13]) + Number(fields[14]);
      all.set(Number(id), { parent: Number(fields[1]), ticks });
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

/** Each kind of process under `root` (its command line's first words: `node`, `nginx: worker process`…) and its PSS (MB). */
export function treeMemoryByKind(root: number): Record<string, number> {
  const byKind: Record<string, number> = {};
  for (const { pid } of processTree(root))
    try {
      const command = fs.readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0')[0];
      const kind = command.startsWith('nginx:')
        ? command.split(' ').slice(0, 3).join(' ')
        : (command.split('/').pop() ?? command);
      const pssKb = Number(/Pss:\s+(\d+)/.exec(fs.readFileSync(`/proc/${pid}/smaps_rollup`, 'utf8'))?.[1] ?? 0);
      byKind[kind] = Math.round((byKind[kind] ?? 0) + pssKb / 1024);
    } catch {
      // the process ended while we looked
    }
  return byKind;
}

/** The embedded cluster's postmaster (the first line of its `postmaster.pid`): none when it does not run. */
export function postmasterPids(dataDir: string): number[] {
  try {
    const pid = Number(fs.readFileSync(path.join(dataDir, 'postmaster.pid'), 'utf8').split('\n')[0]);
    return pid ? [pid] : [];
  } catch {
    return [];
  }
}
