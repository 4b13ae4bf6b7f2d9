// One line per figure: `name: value unit (baseline: value unit, ratio R)`.
const fmt = (v) => (v >= 100 ? v.toFixed(0) : v >= 10 ? v.toFixed(1) : v.toFixed(2));

export function figure(name, value, baseline, unit) {
  return `${name}: ${fmt(value)} ${unit} (baseline: ${fmt(baseline)} ${unit}, ratio ${(value / baseline).toFixed(2)})`;
}

/** The three figures of a load measurement against its baseline. */
export function loadFigures(name, measured, baseline) {
  return [
    figure(`${name} throughput`, measured.rps, baseline.rps, 'req/s'),
    figure(`${name} p50`, measured.p50, baseline.p50, 'ms'),
    figure(`${name} p99`, measured.p99, baseline.p99, 'ms'),
  ];
}
