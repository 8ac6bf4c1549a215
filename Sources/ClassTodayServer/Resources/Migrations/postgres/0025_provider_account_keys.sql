-- An account created by a sign-in provider keeps 'account:<id>' in `users.email_normalized` (no email address has
-- that form) instead of 'identity:<provider>:<subject>'. The old key stayed with the account after that identity was
-- unlinked, so the identity's next sign-in, which creates a new account, collided with it for ever (a 409).
UPDATE users SET email_normalized = 'account:' || id WHERE email_normalized LIKE 'identity:%';
