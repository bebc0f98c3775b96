/**
 * The Rollout's buttons. Each asks first (a modal dialog: Escape or Cancel backs out), then
 * POSTs with the page's CSRF token; the plugin decides and writes with the user's own
 * credentials, and its answer (done, or the refusal: RBAC, conflict, not applicable) is shown.
 */
import type { ActionInput, ActionOffer, ActionRequest, ActionResult } from '../model/wire.ts';
import { MAX_INPUT_LENGTH } from '../model/wire.ts';
import { fill, h } from './dom.ts';

const csrf = (): string =>
  document.querySelector<HTMLMetaElement>('meta[name="stepwise-csrf"]')?.content ?? '';

/** The bar last drawn, reused while its offers stay the same: a redraw that replaced the buttons
 *  between a person's mousedown and mouseup would swallow their click. */
let lastBar: { signature: string; bar: HTMLElement; result: HTMLElement } | undefined;

export function actionBar(namespace: string, name: string, offers: readonly ActionOffer[]) {
  const signature = JSON.stringify([namespace, name, offers]);
  if (lastBar?.signature === signature) return { bar: lastBar.bar, result: lastBar.result };
  const result = h('p', { class: 'result', role: 'status', 'aria-live': 'polite' });
  const bar = h(
    'div',
    { class: 'actions', role: 'group', 'aria-label': 'actions' },
    ...offers.map((o) =>
      h(
        'button',
        {
          type: 'button',
          'data-action': o.action,
          title: o.note,
          'aria-disabled': o.enabled ? undefined : 'true',
          class: o.enabled ? '' : 'off',
          on: { click: () => void confirmThen(o, namespace, name, result) },
        },
        o.label,
      ),
    ),
  );
  lastBar = { signature, bar, result };
  return { bar, result };
}

/** The last answer survives the redraws an update causes. */
let lastAnswer: { key: string; text: string; ok: boolean } | undefined;

export function restoreAnswer(key: string, result: HTMLElement): void {
  if (lastAnswer?.key !== key) return;
  result.textContent = lastAnswer.text;
  result.className = `result ${lastAnswer.ok ? 'ok' : 'refused'}`;
}

async function confirmThen(
  offer: ActionOffer,
  namespace: string,
  name: string,
  result: HTMLElement,
): Promise<void> {
  const inputs = await ask(offer);
  if (inputs === undefined) return;
  const key = `${namespace}/${name}`;
  const show = (ok: boolean, text: string): void => {
    lastAnswer = { key, text, ok };
    // An update may have redrawn the view since the click: write to the one on screen.
    restoreAnswer(key, document.querySelector<HTMLElement>('p.result') ?? result);
  };
  show(true, `${offer.label}…`);
  try {
    const res = await fetch('/api/action', {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', 'X-CSRF-Token': csrf() },
      body: JSON.stringify({
        namespace,
        name,
        action: offer.action,
        ...(offer.inputs === undefined ? {} : { inputs }),
      } satisfies ActionRequest),
    });
    const answer = (await res.json()) as ActionResult;
    show(answer.ok, answer.message);
  } catch (err) {
    show(false, `no answer from the dashboard: ${String(err)}`);
  }
}

type Inputs = NonNullable<ActionRequest['inputs']>;

/** A modal question, with the action's inputs; their values to go ahead, undefined to back out.
 *  Disabled offers still explain themselves here. */
function ask(offer: ActionOffer): Promise<Inputs | undefined> {
  return new Promise((resolve) => {
    const dialog = h('dialog', { class: 'confirm', 'aria-labelledby': 'confirm-title' });
    const fields = offer.enabled ? (offer.inputs ?? []).map(field) : [];
    const done = (yes: boolean): void => {
      if (yes && fields.some((f) => !f.control.reportValidity())) return;
      dialog.close();
      dialog.remove();
      resolve(yes ? Object.fromEntries(fields.map((f) => [f.name, f.control.value])) : undefined);
    };
    const go = h(
      'button',
      { type: 'button', class: 'primary', 'data-confirm': 'yes', on: { click: () => done(true) } },
      offer.label,
    );
    const cancel = h(
      'button',
      { type: 'button', 'data-confirm': 'no', on: { click: () => done(false) } },
      offer.enabled ? 'Cancel' : 'Close',
    );
    fill(
      dialog,
      h('h2', { id: 'confirm-title' }, offer.confirm),
      h('p', {}, offer.enabled ? offer.note : `The plugin would refuse: ${offer.note}`),
      ...fields.map((f) => f.row),
      h('div', { class: 'buttons' }, offer.enabled ? go : null, cancel),
    );
    dialog.addEventListener('cancel', (e) => {
      e.preventDefault();
      done(false);
    });
    document.body.appendChild(dialog);
    dialog.showModal();
    (fields[0]?.control ?? (offer.enabled ? go : cancel)).focus();
  });
}

/** One labelled input of the dialog: a select when the values are known, else a text field. */
function field(input: ActionInput): {
  name: string;
  row: HTMLElement;
  control: HTMLInputElement | HTMLSelectElement;
} {
  const id = `input-${input.name}`;
  const control =
    input.options === undefined
      ? h('input', {
          id,
          name: input.name,
          type: 'text',
          maxlength: MAX_INPUT_LENGTH,
          placeholder: input.placeholder,
          required: input.required,
          autocomplete: 'off',
        })
      : h(
          'select',
          { id, name: input.name, required: input.required },
          ...input.options.map((o) => h('option', { value: o }, o)),
        );
  return {
    name: input.name,
    control,
    row: h('p', { class: 'field' }, h('label', { for: id }, input.label), ' ', control),
  };
}
