import { z } from "zod";

/**
 * The operator desk's forms (api/routes/operator/routes.ts): posted as application/x-www-form-urlencoded by
 * pages for people, validated here, errors shown next to their field. Not part of the public API.
 */
export const SignInForm = z.object({
  email: z.string().trim().toLowerCase().pipe(z.email({ message: "Enter the email address you leased your town with." }).max(254, { message: "An email address has at most 254 characters." })),
});

export const RejectForm = z.object({
  reason: z.string().trim()
    .min(3, { message: "Say why, in a few words: the buyer reads it." })
    .max(500, { message: "Keep the reason under 500 characters." }),
});
