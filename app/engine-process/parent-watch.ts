// The engine process never outlives its parent. A forked engine hears its
// IPC channel close ('disconnect'), but only if nothing else holds it open,
// and Electron's utility-process port says nothing when the app is SIGKILLed.
// So the engine also polls: on POSIX an orphan is re-parented (its ppid
// changes, to init or a subreaper); on Windows the parent's pid stops
// answering. Either way the engine's results have nobody to go to: it exits.

/** Whether the process that was our parent (`parent`) is gone. */
export function parentGone(parent: number): boolean {
  if (process.ppid !== parent) return true;
  try {
    process.kill(parent, 0);
    return false;
  } catch (error) {
    // EPERM: it exists and belongs to someone else (cannot be our parent's case, but it is alive).
    return (error as NodeJS.ErrnoException).code !== 'EPERM';
  }
}

/** Calls `onGone` once, within about `intervalMs`, after the parent died; the timer never keeps the process alive. */
export function watchParent(onGone: () => void, intervalMs = 500): void {
  const parent = process.ppid;
  const timer = setInterval(() => {
    if (!parentGone(parent)) return;
    clearInterval(timer);
    onGone();
  }, intervalMs);
  timer.unref();
}
