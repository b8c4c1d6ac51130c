/**
 * The fault helpers a fault plan drives. Their names are what a stall report's
 * top frame shows, so they are plain named functions, each doing the one
 * thing it says: the watchdog must find the worker *inside* one of them.
 */

/**
 * Emulates a device synchronisation that never returns: waits on a word of a
 * SharedArrayBuffer that nobody ever notifies. V8 still services interrupts
 * (the inspector's pause, worker termination) while a thread is in
 * Atomics.wait, so the thread can be inspected and terminated, but the wait
 * itself never completes.
 */
export function blockOnDeviceSync(): never {
  const fence = new Int32Array(new SharedArrayBuffer(4));
  for (;;) Atomics.wait(fence, 0, 0);
}

/** Emulates a kernel stuck in a busy loop: burns the thread forever. */
export function spinInKernel(): never {
  let acc = 0;
  for (let i = 0; ; i++) {
    acc += Math.sqrt(i & 0xffff);
    if (acc > 1e300) acc = 0;
  }
}

/** Emulates a slow device: sleeps the thread for `ms`, then returns normally. */
export function waitOnSlowDevice(ms: number): void {
  const fence = new Int32Array(new SharedArrayBuffer(4));
  const until = Date.now() + ms;
  // Atomics.wait may return early around interrupts (an inspector pause), so
  // wait until the wall-clock deadline has really passed.
  for (let left = ms; left > 0; left = until - Date.now()) Atomics.wait(fence, 0, 0, left);
}
