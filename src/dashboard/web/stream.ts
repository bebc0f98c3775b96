/**
 * The page's one connection for updates: a server-sent-event stream for the view on screen,
 * replaced when the view changes. The browser reconnects by itself after a drop; the header
 * says whether the page is live.
 */

let current: EventSource | undefined;

export function follow<T>(query: string, event: string, onData: (data: T) => void): void {
  current?.close();
  const source = new EventSource(`/api/stream${query}`);
  current = source;
  const live = document.getElementById('live');
  const say = (text: string, state: string): void => {
    if (live === null) return;
    live.textContent = text;
    live.dataset['state'] = state;
  };
  say('connecting…', 'connecting');
  source.addEventListener(event, (e) => {
    say('live', 'live');
    onData(JSON.parse((e as MessageEvent<string>).data) as T);
  });
  source.addEventListener('error', () => {
    say(source.readyState === EventSource.CLOSED ? 'disconnected' : 'reconnecting…', 'down');
  });
}
