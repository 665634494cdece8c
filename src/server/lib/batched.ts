/**
 * Group commit: `send` gets every item given while its previous call ran, so that at most one call is in
 * flight and a burst costs a few calls, not one per item. An item given while nothing is in flight goes
 * at once (on the next microtask, with the others given in the same turn). Each caller's promise settles
 * with the call that carried its item; a failed call fails its own items only.
 */
export function batched<T>(send: (items: T[]) => Promise<unknown>): (item: T) => Promise<void> {
  let gathering: T[] | null = null;
  let sent: Promise<void> = Promise.resolve();
  let previous: Promise<unknown> = Promise.resolve();
  return (item) => {
    if (!gathering) {
      const batch: T[] = [];
      gathering = batch;
      sent = previous.then(async () => {
        gathering = null;
        await send(batch);
      });
      previous = sent.catch(() => {});
    }
    gathering.push(item);
    return sent;
  };
}
