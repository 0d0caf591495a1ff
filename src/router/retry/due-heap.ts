// A min-heap of due times: the scheduler's index of what comes due next. Entries are never
// removed from the middle; a job that is rescheduled or cancelled leaves its old entry behind,
// which the scheduler recognises by its version and skips when it surfaces.

export interface DueEntry {
  at: number;
  id: string;
  version: number;
}

export class DueHeap {
  private readonly items: DueEntry[] = [];

  get size(): number {
    return this.items.length;
  }

  peek(): DueEntry | undefined {
    return this.items[0];
  }

  push(e: DueEntry): void {
    const a = this.items;
    a.push(e);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (a[p]!.at <= e.at) break;
      a[i] = a[p]!;
      i = p;
    }
    a[i] = e;
  }

  pop(): DueEntry | undefined {
    const a = this.items;
    const top = a[0];
    const last = a.pop();
    if (a.length === 0 || last === undefined) return top;
    let i = 0;
    for (;;) {
      const l = 2 * i + 1;
      if (l >= a.length) break;
      const r = l + 1;
      const c = r < a.length && a[r]!.at < a[l]!.at ? r : l;
      if (a[c]!.at >= last.at) break;
      a[i] = a[c]!;
      i = c;
    }
    a[i] = last;
    return top;
  }

  clear(): void {
    this.items.length = 0;
  }
}
