/**
 * The one place a /metrics family is made (docs/design.md#metrics): each
 * kind of family here writes its series through ./seriesCap.ts, so no family,
 * today's or a future one, can export more than MAX_SERIES label sets of its
 * own or a label value longer than MAX_LABEL_CHARS. prom-client's metric
 * objects stay private to this file; a family registered on `registry` by
 * other means is one `families()` does not name, which the test of every
 * family catches.
 */
import { Counter, Gauge, Histogram, Registry } from 'prom-client';
import { capSeries, LabelGate, type Series } from './seriesCap.ts';

/** A gauge of the database's grouped rows, replaced whole at each scrape (a deleted run's pipeline goes). */
export class GroupedGauge {
  constructor(private readonly g: Gauge<string>) {}

  replace(rows: readonly Series[]): void {
    this.g.reset();
    for (const s of capSeries(rows)) this.g.set(s.labels, s.value);
  }

  clear(): void {
    this.g.reset();
  }
}

/** One unlabelled value read at each scrape (a gauge, or a counter whose total is kept elsewhere). */
export class ScalarValue {
  constructor(private readonly m: Gauge | Counter) {}

  set(value: number): void {
    if (this.m instanceof Gauge) this.m.set(value);
    else {
      this.m.reset();
      this.m.inc(value);
    }
  }
}

/** A counter by labels this process chooses or a peer does: new label sets past the cap count under `other`. */
export class GatedCounter {
  private readonly gate = new LabelGate();

  constructor(private readonly c: Counter<string>) {}

  inc(labels: Record<string, string>, by = 1): void {
    this.c.inc(this.gate.admit(labels), by);
  }

  /** Its value read from somewhere else at each scrape. */
  set(labels: Record<string, string>, value: number): void {
    const l = this.gate.admit(labels);
    this.c.remove(l);
    this.c.inc(l, value);
  }
}

/** A histogram by labels, gated as GatedCounter is. */
export class GatedHistogram {
  private readonly gate = new LabelGate();

  constructor(private readonly h: Histogram<string>) {}

  observe(labels: Record<string, string>, value: number): void {
    this.h.observe(this.gate.admit(labels), value);
  }
}

interface FamilyDoc {
  name: string;
  help: string;
}

export class CappedRegistry {
  readonly registry = new Registry();
  private readonly names = new Set<string>();

  private named<T>(name: string, make: () => T): T {
    if (this.names.has(name)) throw new Error(`metric family ${name} made twice`);
    this.names.add(name);
    return make();
  }

  /** The families made here: every family of `registry`, if none bypassed this file. */
  families(): string[] {
    return [...this.names];
  }

  grouped(f: FamilyDoc & { labelNames: string[] }): GroupedGauge {
    return this.named(f.name, () => new GroupedGauge(new Gauge({ ...f, registers: [this.registry] })));
  }

  gauge(f: FamilyDoc): ScalarValue {
    return this.named(f.name, () => new ScalarValue(new Gauge({ ...f, registers: [this.registry] })));
  }

  counter(f: FamilyDoc): ScalarValue {
    return this.named(f.name, () => new ScalarValue(new Counter({ ...f, registers: [this.registry] })));
  }

  labelledCounter(f: FamilyDoc & { labelNames: string[] }): GatedCounter {
    return this.named(f.name, () => new GatedCounter(new Counter({ ...f, registers: [this.registry] })));
  }

  histogram(f: FamilyDoc & { labelNames: string[]; buckets: number[] }): GatedHistogram {
    return this.named(f.name, () => new GatedHistogram(new Histogram({ ...f, registers: [this.registry] })));
  }
}
