// Progressive enhancement for the server-rendered pages: everything works without this file.
;(function () {
  'use strict'
  // Forms that ask first (cancel a campaign, rotate a key).
  document.addEventListener('submit', function (event) {
    var form = event.target
    if (!(form instanceof HTMLFormElement)) return
    var question = form.getAttribute('data-confirm')
    if (question && !window.confirm(question)) {
      event.preventDefault()
      return
    }
    // One click, one submission: the button is disabled once the form is on its way.
    // (After the event, so a submit button's own name and value still go with the form.)
    var buttons = form.querySelectorAll('button[type=submit]')
    setTimeout(function () {
      for (var i = 0; i < buttons.length; i++) buttons[i].disabled = true
    }, 0)
  })
  // Back to a page kept in the browser's cache: its buttons work again.
  window.addEventListener('pageshow', function () {
    var disabled = document.querySelectorAll('form button[type=submit][disabled]')
    for (var i = 0; i < disabled.length; i++) disabled[i].disabled = false
  })
  // Pages that follow progress (exports) reload themselves while visible.
  var seconds = Number(document.body.getAttribute('data-refresh'))
  if (seconds > 0) {
    setInterval(function () {
      if (document.visibilityState === 'visible') window.location.reload()
    }, seconds * 1000)
  }
  // The create form's auction quote follows the bid, blocks, targeting and kind as they are typed
  // (a fragment from the server, the same service as GET /v1/auction/quote). Without this script the
  // form's "Show my place in the auction" button renders the page again with a fresh quote.
  var quote = document.querySelector('[data-quote-url]')
  var quoteForm = quote ? quote.closest('form') : null
  if (quote && quoteForm) {
    var quoteFields = ['cpm_usd', 'blocks', 'target_surface', 'target_countries', 'kind']
    var quoteTimer = 0
    var quoteAsked = 0
    var quoteQuery = function () {
      var params = new URLSearchParams()
      for (var i = 0; i < quoteFields.length; i++) {
        var field = quoteForm.elements.namedItem(quoteFields[i])
        if (field && field.value !== '') params.set(quoteFields[i], field.value)
      }
      // The topic picker's ticked boxes, as one comma-separated list (issue 40).
      var ticked = quoteForm.querySelectorAll('input[data-topic-name]:checked')
      var topics = []
      for (var j = 0; j < ticked.length; j++) topics.push(ticked[j].getAttribute('data-topic-name'))
      if (topics.length > 0) params.set('target_topics', topics.join(','))
      return params.toString()
    }
    // The page was rendered with the quote of the values it shows.
    var quoteSent = quoteQuery()
    var refreshQuote = function () {
      var query = quoteQuery()
      if (query === quoteSent) return
      quoteSent = query
      var asked = ++quoteAsked
      quote.setAttribute('aria-busy', 'true')
      fetch(quote.getAttribute('data-quote-url') + '?' + query, { credentials: 'same-origin', headers: { accept: 'text/html' } })
        .then(function (response) {
          if (!response.ok) throw new Error('quote ' + response.status)
          return response.text()
        })
        .then(function (html) {
          // Only the answer to the latest question is shown (answers may arrive out of order).
          if (asked === quoteAsked) quote.innerHTML = html
        })
        .catch(function () {
          if (asked !== quoteAsked) return
          quoteSent = ''
          quote.textContent = 'The quote could not be updated just now. Use "Show my place in the auction" to try again.'
        })
        .then(function () {
          if (asked === quoteAsked) quote.removeAttribute('aria-busy')
        })
    }
    var onQuoteInput = function (event) {
      if (!event.target || (quoteFields.indexOf(event.target.name) < 0 && !event.target.hasAttribute('data-topic-name'))) return
      clearTimeout(quoteTimer)
      // Once typing pauses, so the polite live region announces one new place, not one per keystroke.
      quoteTimer = setTimeout(refreshQuote, 400)
    }
    quoteForm.addEventListener('input', onQuoteInput)
    quoteForm.addEventListener('change', onQuoteInput)
  }
  // The create form's line preview (pages/portal/campaign-form.tsx) follows the ad line and brand as they are typed.
  var linePreview = document.querySelector('[data-line-preview]')
  var lineForm = linePreview ? linePreview.closest('form') : null
  if (linePreview && lineForm) {
    var placeholder = linePreview.getAttribute('data-line-preview')
    var showLine = function () {
      var line = lineForm.elements.namedItem('ad_line')
      var brand = lineForm.elements.namedItem('brand')
      var text = line && line.value.trim() !== '' ? line.value.trim() : placeholder
      var name = brand ? brand.value.trim() : ''
      // As domain/preview.ts#disclosedAd: "Ad · {brand} · {ad_line}", or "Ad · {ad_line}" without a brand.
      var shown = 'Ad \u00b7 ' + (name === '' ? '' : name + ' \u00b7 ') + text
      var ads = linePreview.querySelectorAll('.ad')
      for (var i = 0; i < ads.length; i++) ads[i].textContent = shown
    }
    lineForm.addEventListener('input', function (event) {
      if (event.target && (event.target.name === 'ad_line' || event.target.name === 'brand')) showLine()
    })
  }
  // A table wider than its box (pages/data-table.tsx) says so above it, while it is: shaded edges alone are easy to miss on a phone.
  var markScrolling = function () {
    var wraps = document.querySelectorAll('.table-wrap')
    for (var w = 0; w < wraps.length; w++) {
      var wrap = wraps[w]
      var hint = wrap.previousElementSibling && wrap.previousElementSibling.classList.contains('scroll-hint') ? wrap.previousElementSibling : null
      var scrolls = wrap.offsetParent !== null && wrap.scrollWidth > wrap.clientWidth + 1
      if (scrolls && !hint) {
        hint = document.createElement('p')
        hint.className = 'scroll-hint'
        hint.setAttribute('aria-hidden', 'true')
        hint.textContent = 'Scroll sideways to see every column \u2192'
        wrap.parentNode.insertBefore(hint, wrap)
      } else if (!scrolls && hint) {
        hint.remove()
      }
    }
  }
  markScrolling()
  window.addEventListener('resize', markScrolling)
  // A folded table (a chart's Data) is measured when it opens.
  document.addEventListener('toggle', markScrolling, true)
  // Copy buttons next to secrets.
  document.addEventListener('click', function (event) {
    var button = event.target instanceof Element ? event.target.closest('[data-copy]') : null
    if (!button) return
    var source = document.getElementById(button.getAttribute('data-copy'))
    if (source && navigator.clipboard) {
      navigator.clipboard.writeText(source.textContent || '').then(function () {
        button.textContent = 'Copied'
      })
    }
  })
  // ---- Charts (issue 36: pages/chart.tsx): a mark's value as a tooltip on hover and focus; arrow keys move between marks. ----
  var chartTip = null
  var showTip = function (mark) {
    var figure = mark.closest('figure.chart')
    var text = mark.getAttribute('data-tip')
    if (!figure || !text) return
    if (!chartTip) {
      chartTip = document.createElement('div')
      chartTip.className = 'chart-tip'
      // The mark's own accessible name says the same: the tooltip is for eyes only.
      chartTip.setAttribute('aria-hidden', 'true')
    }
    if (chartTip.parentNode !== figure) figure.appendChild(chartTip)
    chartTip.textContent = text
    // Measured at the figure's left edge, where it has the whole width to lay out in.
    chartTip.style.left = '0px'
    chartTip.hidden = false
    // Above the mark's column, clear of the bars and levels around it.
    var shape = mark.querySelector('.hit') || mark
    var box = figure.getBoundingClientRect()
    var at = shape.getBoundingClientRect()
    var left = at.left + at.width / 2 - box.left - chartTip.offsetWidth / 2
    left = Math.max(0, Math.min(left, box.width - chartTip.offsetWidth))
    var top = at.top - box.top - chartTip.offsetHeight - 8
    chartTip.style.left = left + 'px'
    chartTip.style.top = Math.max(0, top) + 'px'
  }
  var hideTip = function () {
    if (chartTip) chartTip.hidden = true
  }
  var markOf = function (node) {
    return node instanceof Element ? node.closest('.chart .mark') : null
  }
  document.addEventListener('mouseover', function (event) {
    var mark = markOf(event.target)
    if (mark) showTip(mark)
    else if (!markOf(document.activeElement)) hideTip()
  })
  document.addEventListener('focusin', function (event) {
    var mark = markOf(event.target)
    if (mark) showTip(mark)
    else hideTip()
  })
  document.addEventListener('focusout', function (event) {
    if (markOf(event.target) && !markOf(event.relatedTarget)) hideTip()
  })
  document.addEventListener('keydown', function (event) {
    var mark = markOf(event.target)
    if (!mark) return
    if (event.key === 'Escape') return hideTip()
    var marks = Array.prototype.slice.call(mark.parentNode.querySelectorAll('.mark'))
    var i = marks.indexOf(mark)
    var next = { ArrowRight: i + 1, ArrowLeft: i - 1, Home: 0, End: marks.length - 1 }[event.key]
    if (next === undefined || !marks[next]) return
    event.preventDefault()
    marks[next].focus()
  })
  // A new width moves the marks: the tooltip follows the focused one, or goes.
  window.addEventListener('resize', function () {
    var focused = markOf(document.activeElement)
    if (focused && chartTip && !chartTip.hidden) showTip(focused)
    else hideTip()
  })
  // ---- end of charts ----
})()
// ---- Copy link (issue 36: pages/copy-link.tsx): the button appears with this script and says "Copied" in its live region.
;(function () {
  'use strict'
  var buttons = document.querySelectorAll('button[data-copy-link]')
  for (var i = 0; i < buttons.length; i++) buttons[i].hidden = false
  var say = function (id, text) {
    var status = document.getElementById(id + '-status')
    if (!status) return
    // Emptied first, so saying "Copied" twice is announced twice.
    status.textContent = ''
    setTimeout(function () {
      status.textContent = text
    }, 50)
  }
  var selectText = function (element) {
    var range = document.createRange()
    range.selectNodeContents(element)
    var selection = window.getSelection()
    if (!selection) return false
    selection.removeAllRanges()
    selection.addRange(range)
    return true
  }
  var fallback = function (id, source) {
    // No clipboard API (or it was refused): the link is selected, and copied if the browser still allows it.
    var copied = false
    if (selectText(source)) {
      try {
        copied = document.execCommand('copy')
      } catch {
        copied = false
      }
    }
    say(id, copied ? 'Copied' : 'The link is selected: copy it with Ctrl+C (⌘C on a Mac).')
  }
  document.addEventListener('click', function (event) {
    var button = event.target instanceof Element ? event.target.closest('button[data-copy-link]') : null
    if (!button) return
    var id = button.getAttribute('data-copy-link')
    var source = document.getElementById(id)
    if (!source) return
    var text = (source.textContent || '').trim()
    if (navigator.clipboard && navigator.clipboard.writeText) {
      navigator.clipboard.writeText(text).then(
        function () {
          say(id, 'Copied')
        },
        function () {
          fallback(id, source)
        },
      )
    } else {
      fallback(id, source)
    }
  })
})()
// ---- end of Copy link
// ---- topics picker (issue 40)
// The create form's topic picker (pages/portal/topic-picker.tsx) works without this script: grouped
// checkboxes in folded groups. Here it gains a filter box (groups without a match hide, groups with
// one open), a live "n of 10 chosen" count and, past ten, the error beside the field before submit.
;(function () {
  var picker = document.querySelector('[data-topic-picker]')
  if (!picker) return
  var max = Number(picker.getAttribute('data-topic-picker')) || 10
  var filterBox = picker.querySelector('[data-topic-filter]')
  var filter = filterBox ? filterBox.querySelector('input') : null
  var countLine = picker.querySelector('[data-topic-count]')
  var errorLine = picker.querySelector('[data-topic-error]')
  var serverError = errorLine && !errorLine.hidden ? errorLine.textContent : ''
  var groups = Array.prototype.slice.call(picker.querySelectorAll('[data-topic-group]'))
  var openedByFilter = []
  var boxes = function () {
    return picker.querySelectorAll('input[type=checkbox][data-topic-name]')
  }
  var recount = function () {
    var n = 0
    var all = boxes()
    for (var i = 0; i < all.length; i++) if (all[i].checked) n++
    if (countLine) countLine.textContent = n + ' of ' + max + ' chosen'
    for (var g = 0; g < groups.length; g++) {
      var summary = groups[g].querySelector('[data-topic-summary]')
      if (!summary) continue
      var total = summary.getAttribute('data-topic-summary')
      var chosen = groups[g].querySelectorAll('input[data-topic-name]:checked').length
      summary.textContent = '(' + (chosen > 0 ? chosen + ' of ' + total + ' chosen' : total) + ')'
    }
    if (!errorLine) return
    if (n > max) {
      errorLine.textContent = 'Choose at most ' + max + ' topics: ' + n + ' are ticked.'
      errorLine.hidden = false
      picker.classList.add('has-error')
    } else if (serverError && errorLine.textContent === serverError) {
      // The service's message stays until the form is sent again.
    } else {
      errorLine.textContent = ''
      errorLine.hidden = true
      picker.classList.remove('has-error')
    }
  }
  var applyFilter = function () {
    var q = filter ? filter.value.trim().toLowerCase() : ''
    for (var g = 0; g < groups.length; g++) {
      var group = groups[g]
      var items = group.querySelectorAll('[data-topic]')
      var shown = 0
      for (var i = 0; i < items.length; i++) {
        var match = q === '' || (items[i].getAttribute('data-topic') || '').indexOf(q) >= 0
        items[i].hidden = !match
        if (match) shown++
      }
      group.hidden = shown === 0
      if (q !== '' && shown > 0 && !group.open) {
        group.open = true
        openedByFilter.push(group)
      }
    }
    if (q === '') {
      // Groups opened only to show matches fold again once the filter is cleared.
      for (var k = 0; k < openedByFilter.length; k++) {
        if (!openedByFilter[k].querySelector('input:checked')) openedByFilter[k].open = false
      }
      openedByFilter = []
    }
  }
  if (filterBox && filter) {
    filterBox.hidden = false
    filter.addEventListener('input', applyFilter)
    // Enter in the filter box must not submit the form.
    filter.addEventListener('keydown', function (event) {
      if (event.key === 'Enter') event.preventDefault()
    })
  }
  picker.addEventListener('change', function (event) {
    if (event.target && event.target.hasAttribute && event.target.hasAttribute('data-topic-name')) recount()
  })
})()
// ---- end of topics picker
