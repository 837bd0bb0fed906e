import assert from 'node:assert/strict'
import type { Page } from 'playwright-core'

/**
 * What every table and chart of a page must be at a phone's width (issue 51):
 * a table's caption whole on the screen, never cut by its scroll box; a table
 * wider than its box says so ("Scroll sideways…" above it) and shows every
 * column once scrolled; a chart's value labels in their own gutter, left of
 * every bar, dot and line. Checks the page as it is laid out now.
 */
export async function assertTablesAndChartsFit(page: Page): Promise<{ tables: number; scrolling: number; charts: number }> {
  const width = page.viewportSize()!.width
  // A string, so the bundler's helpers (esbuild's __name) never reach the page.
  const found = (await page.evaluate(`((viewport) => {
    const problems = []
    function visible(el) { return el.offsetParent !== null }
    const wraps = [...document.querySelectorAll('.table-wrap')].filter(visible)
    let scrolling = 0
    for (const wrap of wraps) {
      const name = wrap.getAttribute('aria-label') ?? document.getElementById(wrap.getAttribute('aria-labelledby') ?? '')?.textContent ?? '?'
      const caption = wrap.previousElementSibling?.classList.contains('scroll-hint') ? wrap.previousElementSibling.previousElementSibling : wrap.previousElementSibling
      if (caption?.classList.contains('table-caption')) {
        const box = caption.getBoundingClientRect()
        if (box.left < 0 || box.right > viewport + 0.5) problems.push(\`\${name}: caption runs off the screen (\${box.left}..\${box.right})\`)
      }
      if (wrap.querySelector('caption:not(.visually-hidden)')) problems.push(\`\${name}: a visible <caption> inside the scroll box\`)
      const scrolls = wrap.scrollWidth > wrap.clientWidth + 1
      const hint = wrap.previousElementSibling?.classList.contains('scroll-hint') ?? false
      if (scrolls) scrolling++
      if (scrolls && !hint) problems.push(\`\${name}: scrolls sideways (\${wrap.scrollWidth} > \${wrap.clientWidth}) with no hint\`)
      if (!scrolls && hint) problems.push(\`\${name}: a scroll hint on a table that fits\`)
      const box = wrap.getBoundingClientRect()
      if (box.right > viewport + 0.5) problems.push(\`\${name}: the box runs off the screen\`)
    }
    const charts = [...document.querySelectorAll('figure.chart')].filter(visible)
    for (const chart of charts) {
      const gutter = chart.querySelector('svg.y-axis')
      const shapes = [...chart.querySelectorAll('svg.timeline .shape, svg.timeline .line')]
      if (shapes.length === 0) continue
      if (!gutter) {
        problems.push(\`\${chart.id}: no value-label gutter\`)
        continue
      }
      const edge = gutter.getBoundingClientRect().right
      for (const label of gutter.querySelectorAll('text')) {
        const box = label.getBoundingClientRect()
        if (box.left < chart.getBoundingClientRect().left - 0.5) problems.push(\`\${chart.id}: value label \${label.textContent} is cut on the left\`)
      }
      for (const s of shapes) if (s.getBoundingClientRect().left < edge - 0.5) problems.push(\`\${chart.id}: a \${s.getAttribute('class')} starts under the value labels\`)
    }
    return { problems, tables: wraps.length, scrolling, charts: charts.length }
  })(${width})`)) as { problems: string[]; tables: number; scrolling: number; charts: number }
  assert.deepEqual(found.problems, [], `${page.url()} at ${width} px`)
  return { tables: found.tables, scrolling: found.scrolling, charts: found.charts }
}
