import { Page } from '../layout.tsx'
import { Field, FormError, NewPasswordField, PostForm, SignInForm } from '../forms.tsx'
import { PASSWORD_MIN_LENGTH } from '../../../domain/sign-in.ts'

/** Sign-in, sign-up and password pages of the portal (pure rendering). */

type Errors = Partial<Record<string, string>>

export function LoginPage(props: { csrf: string; email?: string; error?: string; next?: string; notice?: string | null }) {
  return (
    <Page title="Sign in" area="portal-public" flash={props.notice}>
      <div class="card narrow">
        <FormError message={props.error} />
        <SignInForm action="/portal/login" csrf={props.csrf} email={props.email} next={props.next} />
        <p class="muted">
          <a href="/portal/forgot-password">Forgot password?</a>
        </p>
        <p>
          New here? <a href="/portal/signup">Create an advertiser account</a>.
        </p>
      </div>
    </Page>
  )
}

export function SignupPage(props: { csrf: string; email?: string; errors?: Errors }) {
  const errors = props.errors ?? {}
  return (
    <Page title="Create an advertiser account" area="portal-public">
      <div class="card narrow">
        <p>Sign up, then we review your account (usually within one business day) and email you when it is approved. Meanwhile you can accept the API terms and set up billing.</p>
        <FormError message={errors.form} />
        <PostForm action="/portal/signup" csrf={props.csrf}>
          <Field name="email" label="Email" type="email" autocomplete="email" required value={props.email ?? ''} error={errors.email} />
          <NewPasswordField minLength={PASSWORD_MIN_LENGTH} error={errors.password} />
          <button type="submit">Sign up</button>
        </PostForm>
        <p>
          Already have an account? <a href="/portal/login">Sign in</a>.
        </p>
      </div>
    </Page>
  )
}

export function ForgotPasswordPage(props: { csrf: string; sent?: boolean; email?: string; error?: string }) {
  return (
    <Page title="Reset your password" area="portal-public">
      <div class="card narrow">
        {props.sent ? (
          <p role="status">
            If an account signs in with that email, we have sent it a link to set a new password. The link works once, for one hour; a newer
            link replaces it.
          </p>
        ) : (
          <>
            <FormError message={props.error} />
            <p>Enter the email you sign in with and we will send you a link to set a new password.</p>
            <PostForm action="/portal/forgot-password" csrf={props.csrf}>
              <Field name="email" label="Email" type="email" autocomplete="username" required value={props.email ?? ''} />
              <button type="submit">Send reset link</button>
            </PostForm>
          </>
        )}
        <p>
          <a href="/portal/login">Back to sign-in</a>
        </p>
      </div>
    </Page>
  )
}

export function SetPasswordPage(props: { csrf: string; token: string; purpose: 'reset' | 'set' | null; errors?: Errors }) {
  const errors = props.errors ?? {}
  const title = props.purpose === 'set' ? 'Set your password' : 'Choose a new password'
  return (
    <Page title={title} area="portal-public">
      <div class="card narrow">
        {props.purpose === null ? (
          <p>
            This link has expired or was already used. <a href="/portal/forgot-password">Ask for a new one</a>.
          </p>
        ) : (
          <>
            <FormError message={errors.form} />
            <PostForm action="/portal/reset-password" csrf={props.csrf}>
              <input type="hidden" name="token" value={props.token} />
              <NewPasswordField minLength={PASSWORD_MIN_LENGTH} error={errors.password} note="Setting it signs out every other session." />
              <button type="submit">Set password</button>
            </PostForm>
          </>
        )}
      </div>
    </Page>
  )
}
