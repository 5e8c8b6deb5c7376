import { captureOverhead } from './scenarios/capture.mjs'
const r = await captureOverhead({ config: { captureSeconds: Number(process.argv[2] ?? 8), captureRounds: { warmup: 1, repeat: Number(process.argv[3] ?? 3) } } })
for (const [v, row] of Object.entries(r.variants)) console.log(v.padEnd(9), 'cpu', row.cpuPerRun.toFixed(2), 'p50', row.p50, 'p99', row.p99, 'rps', row.rps.toFixed(1), 'err', row.errors, 'fail', row.failedShare.toFixed(3), JSON.stringify(row.ratios), row.perRound.map(x => `${x.rps.toFixed(0)}/${x.p50}/${x.p99}`).join(' '))
console.log(JSON.stringify(r.stats), r.files)
process.exit(0)
