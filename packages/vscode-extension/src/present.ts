/**
 * What the status bar item says for an offer, with no `vscode` import: the disclosed text
 * (`Ad · {brand} · {ad_line}`, sanitised and cut by display width in ad-client), the tooltip (that it
 * is an ad, and why it was chosen: the topics sent, if any), and what a screen reader hears.
 */
import { adText, clickUrl, fitAd } from '@thinking-line/ad-client/decision'
import type { Offer } from './controller.ts'

/** The most columns the item takes in the status bar. */
export const MAX_COLUMNS = 60

/** VS Code draws `$(name)` in status bar text as an icon: a backslash keeps it text. @param text */
export const escapeIcons = (text: string) => text.replace(/\$\(/g, '\\$(')

export interface Presentation {
  text: string
  tooltip: string
  accessibilityLabel: string
  clickUrl: string | null
}

export function present(offer: Offer): Presentation {
  const full = adText(offer.decision)
  const text = fitAd(offer.decision, MAX_COLUMNS) ?? 'Ad'
  const why =
    offer.topics.length > 0
      ? `Chosen for the topics ${offer.topics.join(', ')}, derived in the editor from the open folder's manifests (only these names were sent).`
      : 'Chosen without topics: nothing about your project was sent.'
  const url = clickUrl(offer.decision)
  return {
    text: escapeIcons(text),
    tooltip: [`Advertisement (Thinking Line): ${full}`, why, url ? 'Click to open the advertiser\'s page.' : ''].filter(Boolean).join('\n'),
    accessibilityLabel: `Advertisement: ${full}`,
    clickUrl: url,
  }
}
