/** An empty message is left out, as Go's `omitempty` leaves it out of Argo's status. */
export function withMessage<T extends { message?: string }>(o: T, message: string | undefined): T {
  const { message: _previous, ...rest } = o;
  return (message ? { ...rest, message } : rest) as T;
}
