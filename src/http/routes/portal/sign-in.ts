import { Type } from 'typebox'
import type { App, RouteDeps } from '../../types.ts'
import { ForgotPasswordForm, LoginForm, SetPasswordForm, SignupForm, EmptyForm } from '../../schemas/pages/forms.ts'
import { ForgotPasswordPage, LoginPage, SetPasswordPage, SignupPage } from '../../pages/portal/sign-in.tsx'
import { readPasswordLink, requestPasswordReset, setPasswordFromLink } from '../../../services/password-links.ts'
import { endSession } from '../../../services/sessions.ts'
import { signIn, signUp } from '../../../services/sign-in.ts'
import { clearSessionCookie, safeNext, sessionCookieName, setSessionCookie } from './session.ts'
import { portalNotice } from '../../pages/portal/notices.ts'
import { emailContext } from '../../email-context.ts'

const hide = { hide: true } as const

/** Sign-up, sign-in, sign-out and emailed password links (operations.md section 5). No session needed. */
export function portalSignInRoutes(deps: RouteDeps) {
  return async (app: App) => {
    app.get('/portal/login', { schema: { ...hide, querystring: Type.Object({ next: Type.Optional(Type.String({ maxLength: 2_000 })), notice: Type.Optional(Type.String({ maxLength: 40 })) }) } }, async (request, reply) =>
      reply.page(LoginPage({ csrf: reply.generateCsrf(), next: request.query.next, notice: portalNotice(request.query.notice) })),
    )

    app.post('/portal/login', { schema: { ...hide, body: LoginForm } }, async (request, reply) => {
      const { email, password, next } = request.body
      const result = await signIn({ ...emailContext(deps, request), counters: deps.counters }, { email, password }, request.clientAddress)
      if (result.ok) {
        setSessionCookie(deps, reply, result.sessionToken)
        return reply.redirect(safeNext(next), 303)
      }
      const csrf = reply.generateCsrf()
      if (result.reason === 'locked') {
        const minutes = Math.ceil(result.retryAfterS / 60)
        reply.header('retry-after', String(result.retryAfterS))
        return reply.page(LoginPage({ csrf, email, next, error: `Too many failed sign-ins from your network. Try again in ${minutes} minutes.` }), 429)
      }
      return reply.page(LoginPage({ csrf, email, next, error: 'That email and password do not match an account.' }), 401)
    })

    app.get('/portal/signup', { schema: hide }, async (_request, reply) => reply.page(SignupPage({ csrf: reply.generateCsrf() })))

    app.post('/portal/signup', { schema: { ...hide, body: SignupForm } }, async (request, reply) => {
      const { email, password } = request.body
      const result = await signUp({ ...emailContext(deps, request), counters: deps.counters }, { email, password }, request.clientAddress)
      if (result.ok) {
        setSessionCookie(deps, reply, result.sessionToken)
        return reply.redirect('/portal?notice=welcome', 303)
      }
      if (result.retryAfterS !== undefined) reply.header('retry-after', String(result.retryAfterS))
      return reply.page(SignupPage({ csrf: reply.generateCsrf(), email, errors: result.errors }), result.retryAfterS === undefined ? 400 : 429)
    })

    app.post('/portal/logout', { schema: { ...hide, body: EmptyForm } }, async (request, reply) => {
      await endSession(deps, request.cookies[sessionCookieName(deps)])
      clearSessionCookie(deps, reply)
      return reply.redirect('/portal/login?notice=signed_out', 303)
    })

    app.get('/portal/forgot-password', { schema: hide }, async (_request, reply) => reply.page(ForgotPasswordPage({ csrf: reply.generateCsrf() })))

    app.post('/portal/forgot-password', { schema: { ...hide, body: ForgotPasswordForm } }, async (request, reply) => {
      // The same page whether or not the address has a login, or was sent its limit of reset emails.
      const result = await requestPasswordReset({ ...emailContext(deps, request), counters: deps.counters }, request.body.email, request.clientAddress)
      if (!result.ok) {
        reply.header('retry-after', String(result.retryAfterS))
        const error = 'Too many reset requests from your network. Try again in an hour.'
        return reply.page(ForgotPasswordPage({ csrf: reply.generateCsrf(), email: request.body.email, error }), 429)
      }
      return reply.page(ForgotPasswordPage({ csrf: reply.generateCsrf(), sent: true }))
    })

    app.get('/portal/reset-password', { schema: { ...hide, querystring: Type.Object({ token: Type.Optional(Type.String({ maxLength: 200 })) }) } }, async (request, reply) => {
      const token = request.query.token ?? ''
      const purpose = await readPasswordLink(deps, token)
      return reply.page(SetPasswordPage({ csrf: reply.generateCsrf(), token, purpose }), purpose === null ? 410 : 200)
    })

    app.post('/portal/reset-password', { schema: { ...hide, body: SetPasswordForm } }, async (request, reply) => {
      const { token, password } = request.body
      const result = await setPasswordFromLink(deps, token, password)
      if (result.ok) {
        setSessionCookie(deps, reply, result.sessionToken)
        return reply.redirect('/portal?notice=password_set', 303)
      }
      const purpose = await readPasswordLink(deps, token)
      return reply.page(SetPasswordPage({ csrf: reply.generateCsrf(), token, purpose, errors: result.errors }), 400)
    })
  }
}
