// @ts-expect-error: the package ships no types; its shape is declared below.
import parsePrometheusTextFormat from "parse-prometheus-text-format";

/** One family of a Prometheus text exposition, as parse-prometheus-text-format reads it. */
export interface MetricFamily {
  name: string;
  help: string;
  type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
  metrics: { value?: string; labels?: Record<string, string>; buckets?: Record<string, string>; count?: string; sum?: string }[];
}

/** A scrape of `url` (/metrics), parsed: family by name. Fails on a non-200 answer. */
export async function scrape(url: string, headers: Record<string, string> = {}): Promise<Map<string, MetricFamily>> {
  const res = await fetch(url, { headers });
  if (res.status !== 200) throw new Error(`GET ${url}: ${res.status} ${await res.text()}`);
  const families = parsePrometheusTextFormat(await res.text()) as MetricFamily[];
  return new Map(families.map((f) => [f.name, f]));
}

/** The value of the sample of `name` whose labels include `labels` (undefined when there is none). */
export function sample(families: Map<string, MetricFamily>, name: string, labels: Record<string, string> = {}): number | undefined {
  const found = families.get(name)?.metrics.find((m) => Object.entries(labels).every(([k, v]) => m.labels?.[k] === v));
  return found?.value === undefined ? (found?.count === undefined ? undefined : Number(found.count)) : Number(found.value);
}
