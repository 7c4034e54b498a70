/** Whether a process with this pid exists on this machine (EPERM: it exists but is not ours). Used to take over locks of crashed holders. */
export function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === "EPERM";
  }
}
