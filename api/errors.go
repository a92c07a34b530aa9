package api

import "errors"

// Conditions of a JSON-RPC connection that stop a subscription method;
// the services' own errors are package backend's.
var (
	// ErrNotificationsUnavailable is a subscription over a transport that
	// cannot push (HTTP).
	ErrNotificationsUnavailable = errors.New("subscriptions need a connection that can push notifications")
	// ErrSubscriptionNotFound is an unsubscription of an id the connection
	// does not hold.
	ErrSubscriptionNotFound = errors.New("subscription not found")
	// ErrTooManySubscriptions is a subscription past the per-connection cap
	// (MaxSubscriptionsPerConnection).
	ErrTooManySubscriptions = errors.New("too many subscriptions on the connection")
)
