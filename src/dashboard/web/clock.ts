/**
 * Countdowns on the page: elements carrying data-ends-at (epoch ms, the server's clock) show the
 * time left, updated every second in the browser. Nothing is requested from the server for it.
 */
import { timeLeft } from '../model/filter.ts';

let skew = 0;

/** The server's `now` with each payload: its clock minus ours. */
export function serverNow(now: number): void {
  skew = now - Date.now();
}

export const nowOnServer = (): number => Date.now() + skew;

export function tick(): void {
  for (const el of document.querySelectorAll<HTMLElement>('[data-ends-at]')) {
    const left = Number(el.dataset['endsAt']) - nowOnServer();
    el.textContent = `${timeLeft(left)} left`;
  }
}

setInterval(tick, 1000);
