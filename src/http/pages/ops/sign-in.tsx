import { Page } from '../layout.tsx'
import { Field, FormError, NewPasswordField, PostForm, SignInForm } from '../forms.tsx'
import { PASSWORD_MIN_LENGTH } from '../../../domain/sign-in.ts'
import type { FieldErrors } from './messages.ts'

/** Sign-in and first-operator setup of the console (pure rendering). */

export function OpsLoginPage(props: { csrf: string; email?: string; error?: string; next?: string; notice?: string | null; setupOpen: boolean }) {
  return (
    <Page title="Sign in" heading="Operator sign-in" area="ops-public" flash={props.notice}>
      <div class="card narrow">
        {props.setupOpen ? (
          <p role="status">
            No operator account exists yet. <a href="/ops/setup">Set up the console</a> with the service’s ADMIN_TOKEN first.
          </p>
        ) : null}
        <FormError message={props.error} />
        <SignInForm action="/ops/login" csrf={props.csrf} email={props.email} next={props.next} />
      </div>
    </Page>
  )
}

export function OpsSetupPage(props: { csrf: string; email?: string; errors?: FieldErrors }) {
  const errors = props.errors ?? {}
  return (
    <Page title="Set up the console" heading="Set up the operator console" area="ops-public">
      <div class="card narrow">
        <p>
          Create the first operator account. Prove you run this service with its ADMIN_TOKEN; once an operator exists, this page closes
          and operators sign in with their own email and password.
        </p>
        <FormError message={errors.form} />
        <PostForm action="/ops/setup" csrf={props.csrf}>
          <Field name="token" label="Token" type="password" autocomplete="off" required hint="The ADMIN_TOKEN the service was started with." error={errors.token} />
          <Field name="email" label="Email" type="email" autocomplete="username" required value={props.email ?? ''} error={errors.email} />
          <NewPasswordField minLength={PASSWORD_MIN_LENGTH} error={errors.password} />
          <button type="submit">Create operator</button>
        </PostForm>
      </div>
    </Page>
  )
}
