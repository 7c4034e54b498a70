import { AdminLease, AdminLeaseList, AdminLeaseListQuery, AdminLeaseParams, AdminOrder, AdminOrderList, AdminOrderListQuery, AdminOrderParams, AdminRejectBody } from "../commerce.ts";
import { CACHE, type Operation } from "../operation.ts";

// Staff review of listing orders: `Authorization: Bearer ADMIN_TOKEN` over HTTP (401 without, 403
// wrong, 503 when no token is configured), and `npm run admin -- orders ...` through the same bindings.
const ADMIN_ERRORS = ["unauthorized", "forbidden", "service_misconfigured", "validation_error", "not_found"] as const;

export const adminOperations = {
  adminListOrders: {
    operationId: "adminListOrders", method: "GET", path: "/admin/orders", tags: ["Admin"],
    summary: "Listing orders, newest first (optionally one status)",
    query: AdminOrderListQuery, response: AdminOrderList,
    errors: [...ADMIN_ERRORS], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
  adminShowOrder: {
    operationId: "adminShowOrder", method: "GET", path: "/admin/orders/{id}", tags: ["Admin"],
    summary: "One listing order with its buyer and screen verdict",
    params: AdminOrderParams, response: AdminOrder,
    errors: [...ADMIN_ERRORS], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
  adminApproveOrder: {
    operationId: "adminApproveOrder", method: "POST", path: "/admin/orders/{id}/approve", tags: ["Admin"],
    summary: "Approve a free listing awaiting review: it is published",
    params: AdminOrderParams, response: AdminOrder,
    errors: [...ADMIN_ERRORS, "conflict"], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
  adminRejectOrder: {
    operationId: "adminRejectOrder", method: "POST", path: "/admin/orders/{id}/reject", tags: ["Admin"],
    summary: "Reject a listing awaiting review or held, with a reason the buyer reads on the order page (the email says only that it was rejected)",
    params: AdminOrderParams, body: AdminRejectBody, response: AdminOrder,
    errors: [...ADMIN_ERRORS, "conflict", "invalid_json"], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
  adminReleaseOrder: {
    operationId: "adminReleaseOrder", method: "POST", path: "/admin/orders/{id}/release", tags: ["Admin"],
    summary: "Release a held listing: a payment link is issued (free tier: it is published)",
    params: AdminOrderParams, response: AdminOrder,
    errors: [...ADMIN_ERRORS, "conflict", "upstream_error"], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
  adminListLeases: {
    operationId: "adminListLeases", method: "GET", path: "/admin/leases", tags: ["Admin"],
    summary: "Town leases, newest first (optionally one status)",
    query: AdminLeaseListQuery, response: AdminLeaseList,
    errors: [...ADMIN_ERRORS], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
  adminEndLease: {
    operationId: "adminEndLease", method: "POST", path: "/admin/leases/{id}/end", tags: ["Admin"],
    summary: "End an active lease now: the town is free, and what its operator set stops (notes after today, their feeds); a Stripe lease ends by cancelling its subscription in Stripe",
    params: AdminLeaseParams, response: AdminLease,
    errors: [...ADMIN_ERRORS, "conflict"], cache: CACHE.none, auth: "admin", visibility: "internal",
  },
} satisfies Record<string, Operation>;
