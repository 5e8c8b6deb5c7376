// Loaded by `--require` into a worker thread that a tape's test started while the tape records or
// replays (see worker-guard.ts): installs the network guards there, owned by that tape for as
// long as it runs. A worker started any other way never loads it.
import { getEnvironmentData, isMainThread } from 'node:worker_threads'
import { installNetworkGuards } from './guards.js'
import { useWorkerOwner } from './owner.js'
import { isTapeRunning, WORKER_DATA_KEY, type WorkerGuardData, writeWorkerRefusal } from './worker-report.js'

const data = isMainThread ? undefined : (getEnvironmentData(WORKER_DATA_KEY) as WorkerGuardData | undefined)
if (data) {
  const replaying = data.action === 'replay'
  const owner = {
    who: () =>
      `this worker thread was started by tape "${data.tape}", which is ${replaying ? 'replaying, and a replay never reaches the network' : 'recording'}`,
    replaying,
    tape: undefined,
    inWorker: true,
    report: (error: Error) => writeWorkerRefusal(data.report, error.message),
  }
  useWorkerOwner(() => (isTapeRunning(data.report) ? owner : undefined))
  installNetworkGuards({ modelEndpoints: data.modelEndpoints, allowHosts: data.allowHosts })
}
