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
})()
