/**
 * A strict parser of the Prometheus text exposition format (version 0.0.4), for tests: every line
 * must be a `# HELP`, a `# TYPE`, a comment or a sample of a declared family, or it throws.
 */

/** One sample line: `name{label="value",…} 1.5`. */
export interface Sample {
  readonly name: string;
  readonly labels: Readonly<Record<string, string>>;
  readonly value: number;
}

/** A metric family: its `# TYPE`, `# HELP` and samples. */
export interface MetricFamily {
  readonly name: string;
  readonly type: 'counter' | 'gauge' | 'histogram' | 'summary' | 'untyped';
  readonly help: string;
  readonly samples: Sample[];
}

const NAME = '[a-zA-Z_:][a-zA-Z0-9_:]*';
const SAMPLE = new RegExp(`^(${NAME})(?:\\{(.*)\\})? (\\S+)(?: (-?\\d+))?$`);
const LABEL = /\s*([a-zA-Z_][a-zA-Z0-9_]*)="((?:[^"\\\\]|\\\\.)*)"\s*(,|$)/y;
const SUFFIXES: Readonly<Record<string, readonly string[]>> = {
  histogram: ['_bucket', '_sum', '_count'],
  summary: ['', '_sum', '_count'],
};

/** Parses `text`; throws an `Error` naming the line for anything that is not the format. */
export function parsePrometheusText(text: string): Map<string, MetricFamily> {
  const families = new Map<string, MetricFamily & { help: string }>();
  const family = (name: string): MetricFamily & { help: string } => {
    let f = families.get(name);
    if (!f) families.set(name, (f = { name, type: 'untyped', help: '', samples: [] }));
    return f;
  };
  text.split('\n').forEach((line, i) => {
    const where = `line ${i + 1}: ${JSON.stringify(line)}`;
    if (line === '') return;
    if (line.startsWith('# HELP ')) {
      const m = new RegExp(`^# HELP (${NAME}) (.*)$`).exec(line);
      if (!m) throw new Error(`bad HELP at ${where}`);
      family(m[1]!).help = m[2]!;
    } else if (line.startsWith('# TYPE ')) {
      const m = new RegExp(`^# TYPE (${NAME}) (counter|gauge|histogram|summary|untyped)$`).exec(line);
      if (!m) throw new Error(`bad TYPE at ${where}`);
      const f = family(m[1]!);
      if (f.samples.length > 0) throw new Error(`TYPE after samples at ${where}`);
      (f as { type: string }).type = m[2]!;
    } else if (line.startsWith('#')) {
      return;
    } else {
      const m = SAMPLE.exec(line);
      if (!m) throw new Error(`bad sample at ${where}`);
      const [, name, labelText = '', raw] = m;
      const value = raw === '+Inf' ? Infinity : raw === '-Inf' ? -Infinity : raw === 'NaN' ? NaN : Number(raw);
      if (Number.isNaN(value) && raw !== 'NaN') throw new Error(`bad value at ${where}`);
      const labels: Record<string, string> = {};
      LABEL.lastIndex = 0;
      while (LABEL.lastIndex < labelText.length) {
        const l = LABEL.exec(labelText);
        if (!l) throw new Error(`bad labels at ${where}`);
        labels[l[1]!] = l[2]!.replace(/\\(.)/g, (_, c: string) => (c === 'n' ? '\n' : c));
      }
      const owner = [...families.values()].find((f) => (SUFFIXES[f.type] ?? ['']).some((s) => f.name + s === name));
      if (!owner) throw new Error(`sample of an undeclared family at ${where}`);
      owner.samples.push({ name: name!, labels, value });
    }
  });
  return families;
}
