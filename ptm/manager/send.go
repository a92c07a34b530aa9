package manager

import (
	"context"
	"errors"
	"fmt"
	"sync"

	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/storage"
)

// SendRequest is a /send (or /sendraw) request. Nil pointers are absent
// fields; Payload is nil when the request's Base64 did not decode.
type SendRequest struct {
	Payload        []byte
	From           *string
	To             []string
	PrivacyGroupID *string
}

// normalize applies Orion's SendRequest rules: "from" with no "to" sends to
// "from"; then there must be recipients without empty keys or a privacy
// group id, a non-empty payload, and "from" if present must not be empty.
func (r *SendRequest) normalize() error {
	if r.From != nil && len(r.To) == 0 {
		r.To = []string{*r.From}
	}
	if r.PrivacyGroupID != nil && *r.PrivacyGroupID == "" {
		r.PrivacyGroupID = nil
	}
	toOK := len(r.To) > 0
	for _, k := range r.To {
		if k == "" {
			toOK = false
		}
	}
	switch {
	case !toOK && r.PrivacyGroupID == nil:
		return ptm.Errorf(ptm.InvalidPayload, "no recipients: give \"to\" (without empty keys) or \"privacyGroupId\"")
	case r.Payload == nil:
		return ptm.Errorf(ptm.InvalidPayload, "payload is not Base64")
	case len(r.Payload) == 0:
		return ptm.Errorf(ptm.InvalidPayload, "payload is empty")
	case r.From != nil && *r.From == "":
		return ptm.Errorf(ptm.InvalidPayload, "from is empty")
	}
	return nil
}

// Send encrypts a payload for its recipients, pushes it to the instances
// hosting remote recipients, stores it, and returns its payload key.
func (m *Manager) Send(ctx context.Context, r SendRequest) (string, error) {
	p, _, err := m.send(ctx, r, nil)
	if err != nil {
		return "", err
	}
	return p.Digest(), nil
}

// sealFunc makes the payload of a send from its parties; nil means encrypt
// the request's payload afresh (Enclave.Encrypt).
type sealFunc func(from keys.PublicKey, recipients []keys.PublicKey, seed []byte) (*payload.EncryptedPayload, error)

// defaultSender is the first key the caller may use: the first hosted key,
// or the first of a tenant's keys.
func (m *Manager) defaultSender(ctx context.Context) (keys.PublicKey, error) {
	nodeKeys := m.Enclave.NodeKeys()
	if a := AccessOf(ctx).Keys(); a != nil {
		nodeKeys = a
	}
	if len(nodeKeys) == 0 {
		return keys.PublicKey{}, ptm.Errorf(ptm.NoSenderKey, "no from and no hosted key")
	}
	return nodeKeys[0], nil
}

// send is Send, returning the stored payload and its recipients (the
// sender not included).
func (m *Manager) send(ctx context.Context, r SendRequest, seal sealFunc) (*payload.EncryptedPayload, []keys.PublicKey, error) {
	if err := r.normalize(); err != nil {
		return nil, nil, err
	}
	if m.MaxPayload > 0 && len(r.Payload) > m.MaxPayload {
		return nil, nil, ptm.Errorf(ptm.PayloadTooLarge, "payload of %d bytes exceeds the limit of %d", len(r.Payload), m.MaxPayload)
	}
	var from keys.PublicKey
	var fromStr string
	if r.From != nil {
		k, err := keys.ParsePublicKey(*r.From)
		if err != nil {
			return nil, nil, ptm.Errorf(ptm.EnclaveDecodePublicKey, "from: %w", err)
		}
		from, fromStr = k, *r.From
	} else {
		k, err := m.defaultSender(ctx)
		if err != nil {
			return nil, nil, err
		}
		from, fromStr = k, k.String()
	}
	if err := m.allow(ctx, from); err != nil {
		return nil, nil, err
	}

	var group *payload.PrivacyGroup
	if r.PrivacyGroupID == nil {
		var err error
		if group, err = m.legacyGroup(ctx, r.To, fromStr); err != nil {
			return nil, nil, err
		}
	} else {
		g, err := m.getGroup(ctx, *r.PrivacyGroupID)
		if err != nil && !errors.Is(err, storage.ErrNotFound) {
			return nil, nil, ptm.Wrap(ptm.PrivacyGroupNotFound, err)
		}
		if err != nil || g.State != payload.Active {
			return nil, nil, ptm.Errorf(ptm.PrivacyGroupNotFound, "privacy group %q not found", *r.PrivacyGroupID)
		}
		group = g
	}

	recipients := make([]keys.PublicKey, 0, len(group.Addresses)+len(m.Enclave.AlwaysSendTo()))
	for _, a := range group.Addresses {
		if a == fromStr {
			continue
		}
		k, err := keys.ParsePublicKey(a)
		if err != nil {
			return nil, nil, ptm.Errorf(ptm.EnclaveDecodePublicKey, "recipient %q: %w", a, err)
		}
		recipients = append(recipients, k)
	}
	recipients = append(recipients, m.Enclave.AlwaysSendTo()...)

	var seed []byte
	if group.Type == payload.Pantheon {
		seed = group.RandomSeed
	}
	if seal == nil {
		seal = func(from keys.PublicKey, recipients []keys.PublicKey, seed []byte) (*payload.EncryptedPayload, error) {
			return m.Enclave.Encrypt(r.Payload, from, recipients, seed)
		}
	}
	p, err := seal(from, recipients, seed)
	if err != nil {
		return nil, nil, err
	}
	if err := m.pushPayload(ctx, p, recipients); err != nil {
		return nil, nil, err
	}
	if _, err := m.putPayload(ctx, p, append(recipients[:len(recipients):len(recipients)], from)); err != nil {
		return nil, nil, ptm.Wrap(ptm.Unmapped, err)
	}
	return p, recipients, nil
}

// legacyGroup returns the LEGACY group of to ++ [from], storing it (and its
// index entry) the first time it is used, and again after it was deleted: a
// legacy group exists because its parties send to each other, so the next
// legacy send brings a deleted one back (Orion left it deleted, and sends
// with its id failed from then on).
func (m *Manager) legacyGroup(ctx context.Context, to []string, from string) (*payload.PrivacyGroup, error) {
	addrs := make([]string, 0, len(to)+1)
	addrs = append(addrs, to...)
	addrs = append(addrs, from)
	members, err := payload.ParseKeys(addrs)
	if err != nil {
		return nil, ptm.Wrap(ptm.EnclaveDecodePublicKey, err)
	}
	g := &payload.PrivacyGroup{
		Addresses:   addrs,
		Name:        payload.LegacyName,
		Description: payload.LegacyDescription,
		State:       payload.Active,
		Type:        payload.Legacy,
	}
	id := enclave.GroupIDString(members, nil, payload.Legacy)
	data, err := m.Store.Get(ctx, []byte(id))
	switch {
	case err == nil:
		state, err := payload.DecodeGroupState(data)
		if err != nil {
			return nil, ptm.Wrap(ptm.PrivacyGroupNotStored, fmt.Errorf("stored privacy group %s: %w", id, err))
		}
		if state == payload.Active {
			return g, nil
		}
	case !errors.Is(err, storage.ErrNotFound):
		return nil, ptm.Wrap(ptm.PrivacyGroupNotStored, err)
	}
	if err := m.storeGroup(ctx, id, g); err != nil {
		return nil, err
	}
	return g, nil
}

// pushPayload sends p, stripped to each peer's keys, to every instance that
// hosts a recipient and is not this one, concurrently, and checks that each
// answers with p's digest.
func (m *Manager) pushPayload(ctx context.Context, p *payload.EncryptedPayload, recipients []keys.PublicKey) error {
	byURL := map[string][]keys.PublicKey{}
	var order []string
	seen := map[keys.PublicKey]bool{}
	for _, k := range recipients {
		if m.Enclave.Hosts(k) || seen[k] {
			continue
		}
		seen[k] = true
		u, ok := m.Table.URLFor(k)
		if !ok {
			return ptm.Errorf(ptm.NodeMissingPeerURL, "no known instance hosts %s", k)
		}
		if m.isSelf(u) {
			continue
		}
		if _, ok := byURL[u]; !ok {
			order = append(order, u)
		}
		byURL[u] = append(byURL[u], k)
	}
	if len(order) == 0 {
		return nil
	}
	digest := p.Digest()
	errs := make([]error, len(order))
	var wg sync.WaitGroup
	for i, u := range order {
		stripped, err := p.StripFor(byURL[u])
		if err != nil {
			return ptm.Wrap(ptm.EnclaveNotPayloadOwner, err)
		}
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := m.Peers.Push(ctx, u, stripped)
			if err == nil && got != digest {
				err = &PeerStatusError{URL: u, Status: 200, Body: got}
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			m.log().Warn("push failed", "url", order[i], "err", err)
			// Orion reports any failed push of /send as NodePropagatingToAllPeers.
			return ptm.Wrap(ptm.NodePropagatingToAllPeers, fmt.Errorf("push to %s: %w", order[i], err))
		}
	}
	return nil
}
