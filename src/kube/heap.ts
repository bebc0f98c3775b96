/** A binary min-heap ordered by `less`. Used by the work queue for delayed keys. */
export class MinHeap<T> {
  readonly #items: T[] = [];
  readonly #less: (a: T, b: T) => boolean;

  constructor(less: (a: T, b: T) => boolean) {
    this.#less = less;
  }

  get size(): number {
    return this.#items.length;
  }

  peek(): T | undefined {
    return this.#items[0];
  }

  push(item: T): void {
    const a = this.#items;
    a.push(item);
    let i = a.length - 1;
    while (i > 0) {
      const p = (i - 1) >> 1;
      if (!this.#less(a[i] as T, a[p] as T)) break;
      this.#swap(i, p);
      i = p;
    }
  }

  pop(): T | undefined {
    const a = this.#items;
    const top = a[0];
    const last = a.pop();
    if (a.length > 0 && last !== undefined) {
      a[0] = last;
      let i = 0;
      for (;;) {
        const l = 2 * i + 1;
        const r = l + 1;
        let m = i;
        if (l < a.length && this.#less(a[l] as T, a[m] as T)) m = l;
        if (r < a.length && this.#less(a[r] as T, a[m] as T)) m = r;
        if (m === i) break;
        this.#swap(i, m);
        i = m;
      }
    }
    return top;
  }

  clear(): void {
    this.#items.length = 0;
  }

  #swap(i: number, j: number): void {
    const a = this.#items;
    const t = a[i] as T;
    a[i] = a[j] as T;
    a[j] = t;
  }
}
