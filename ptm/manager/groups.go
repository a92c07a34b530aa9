package manager

import (
	"context"
	"crypto/rand"
	"errors"
	"fmt"
	"slices"
	"sync"

	"github.com/basaltchain/basalt/ptm"
	"github.com/basaltchain/basalt/ptm/enclave"
	"github.com/basaltchain/basalt/ptm/keys"
	"github.com/basaltchain/basalt/ptm/payload"
	"github.com/basaltchain/basalt/ptm/storage"
)

// seedSize is the length of a random PANTHEON group seed.
const seedSize = 20

// Group is a privacy group as the client API shows it. Name and Description
// are omitted when nil (a create request without them).
type Group struct {
	PrivacyGroupID string            `json:"privacyGroupId"`
	Name           *string           `json:"name,omitempty"`
	Description    *string           `json:"description,omitempty"`
	Type           payload.GroupType `json:"type"`
	Members        []string          `json:"members"`
}

func groupView(id string, g *payload.PrivacyGroup) Group {
	return Group{
		PrivacyGroupID: id,
		Name:           &g.Name,
		Description:    &g.Description,
		Type:           g.Type,
		Members:        g.Addresses,
	}
}

// CreateGroupRequest is a /createPrivacyGroup request.
type CreateGroupRequest struct {
	Addresses   []string
	From        *string
	Name        *string
	Description *string
	Seed        []byte // nil or empty: 20 random bytes
}

// CreateGroup creates a PANTHEON group, pushes it to every other instance
// hosting a member, then stores it.
func (m *Manager) CreateGroup(ctx context.Context, r CreateGroupRequest) (*Group, error) {
	if len(r.Addresses) == 0 {
		return nil, ptm.Errorf(ptm.CreateGroupInvalidParams, "addresses is empty")
	}
	if r.From == nil || !slices.Contains(r.Addresses, *r.From) {
		return nil, ptm.Errorf(ptm.CreatePrivacyGroupShouldIncludeSelf, "from must be one of the addresses")
	}
	members, err := payload.ParseKeys(r.Addresses)
	if err != nil {
		return nil, ptm.Wrap(ptm.EnclaveDecodePublicKey, err)
	}
	from, err := keys.ParsePublicKey(*r.From)
	if err != nil {
		return nil, ptm.Errorf(ptm.EnclaveDecodePublicKey, "from: %w", err)
	}
	if err := m.allow(ctx, from); err != nil {
		return nil, err
	}
	seed := r.Seed
	if len(seed) == 0 {
		seed = make([]byte, seedSize)
		if _, err := rand.Read(seed); err != nil {
			return nil, ptm.Wrap(ptm.EnclavePrivacyGroupIDCreation, err)
		}
	}
	g := &payload.PrivacyGroup{
		Addresses: r.Addresses,
		State:     payload.Active,
		Type:      payload.Pantheon,
	}
	if r.Name != nil {
		g.Name = blankToEmpty(*r.Name)
	}
	if r.Description != nil {
		g.Description = blankToEmpty(*r.Description)
	}
	g.RandomSeed = seed
	id := enclave.GroupIDString(members, seed, payload.Pantheon)
	targets, err := m.peerTargets(members)
	if err != nil {
		return nil, err
	}
	if err := m.pushGroup(ctx, targets, members, from, id, g); err != nil {
		return nil, err
	}
	if err := m.storeGroup(ctx, id, g); err != nil {
		return nil, err
	}
	return &Group{PrivacyGroupID: id, Name: r.Name, Description: r.Description, Type: payload.Pantheon, Members: r.Addresses}, nil
}

// blankToEmpty stores a blank name or description as "" (Orion).
func blankToEmpty(s string) string {
	for _, c := range s {
		if c != ' ' && c != '\t' && c != '\n' && c != '\r' && c != '\f' && c != '\v' {
			return s
		}
	}
	return ""
}

// DeleteGroup marks a group DELETED, pushes that to every other instance
// hosting a member, stores it and drops it from the index. from must be a
// member (DeletePrivacyGroupShouldIncludeSelf otherwise): Orion let any
// caller delete any group.
func (m *Manager) DeleteGroup(ctx context.Context, id string, from *string) (string, error) {
	g, err := m.getGroup(ctx, id)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return "", ptm.Wrap(ptm.PrivacyGroupNotDeleted, err)
	}
	if err != nil || g.State != payload.Active {
		return "", ptm.Errorf(ptm.PrivacyGroupNotDeleted, "privacy group %q does not exist or is deleted", id)
	}
	members, err := g.Members()
	if err != nil {
		return "", ptm.Wrap(ptm.EnclaveDecodePublicKey, err)
	}
	if from == nil {
		return "", ptm.Errorf(ptm.DeletePrivacyGroupShouldIncludeSelf, "from is missing: only a member may delete privacy group %q", id)
	}
	fromKey, err := keys.ParsePublicKey(*from)
	if err != nil {
		return "", ptm.Errorf(ptm.EnclaveDecodePublicKey, "from: %w", err)
	}
	if !slices.Contains(members, fromKey) {
		return "", ptm.Errorf(ptm.DeletePrivacyGroupShouldIncludeSelf, "%s is not a member of privacy group %q: only a member may delete it", fromKey, id)
	}
	if err := m.allow(ctx, fromKey); err != nil {
		return "", err
	}
	// Every other instance hosting a member is told, from's included when
	// from is not hosted here (Orion skipped from's instance, assuming it
	// was this one).
	targets, err := m.peerTargets(members)
	if err != nil {
		return "", err
	}
	g.State = payload.Deleted
	if err := m.pushGroup(ctx, targets, members, fromKey, id, g); err != nil {
		return "", err
	}
	if err := m.storeGroup(ctx, id, g); err != nil {
		return "", err
	}
	return id, nil
}

// FindGroups returns the ACTIVE groups whose member set is exactly addresses
// (order and duplicates ignored); none when the caller may act as none of
// the members.
func (m *Manager) FindGroups(ctx context.Context, addresses []string) ([]Group, error) {
	members, err := payload.ParseKeys(addresses)
	if err != nil {
		return nil, ptm.Wrap(ptm.EnclaveDecodePublicKey, err)
	}
	out := []Group{}
	if !AccessOf(ctx).AllowsAny(members) {
		return out, nil // a tenant sees only groups it is a member of
	}
	data, err := m.Store.Get(ctx, []byte(enclave.IndexKey(members)))
	if errors.Is(err, storage.ErrNotFound) {
		return out, nil
	}
	if err != nil {
		return nil, ptm.Wrap(ptm.PrivacyGroupQueryError, err)
	}
	x, err := payload.DecodeGroupIndex(data)
	if err != nil {
		return nil, ptm.Wrap(ptm.PrivacyGroupQueryError, err)
	}
	for _, id := range x.PrivacyGroupIDs {
		g, err := m.getGroup(ctx, id)
		if errors.Is(err, storage.ErrNotFound) {
			continue // index written, group not (yet): see the package doc
		}
		if err != nil {
			return nil, ptm.Wrap(ptm.PrivacyGroupQueryError, err)
		}
		if g.State == payload.Active {
			out = append(out, groupView(id, g))
		}
	}
	return out, nil
}

// RetrieveGroup returns an ACTIVE group; missing or deleted is
// PrivacyGroupNotFound, and so is a group none of whose members the caller
// may act as.
func (m *Manager) RetrieveGroup(ctx context.Context, id string) (*Group, error) {
	g, err := m.getGroup(ctx, id)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, ptm.Wrap(ptm.PrivacyGroupQueryError, err)
	}
	if err != nil || g.State != payload.Active {
		return nil, ptm.Errorf(ptm.PrivacyGroupNotFound, "privacy group %q not found", id)
	}
	if members, err := g.Members(); err != nil || !AccessOf(ctx).AllowsAny(members) {
		return nil, ptm.Errorf(ptm.PrivacyGroupNotFound, "privacy group %q not found for this client", id)
	}
	v := groupView(id, g)
	return &v, nil
}

// target is an instance a group is pushed to, with one of the members it
// hosts (the recipient of the push's authentication).
type target struct {
	url    string
	member keys.PublicKey
}

// peerTargets returns the distinct instances, other than this one, hosting
// members (in first-seen order). A key hosted here needs no URL.
func (m *Manager) peerTargets(members []keys.PublicKey) ([]target, error) {
	var out []target
	for _, k := range members {
		if m.Enclave.Hosts(k) {
			continue
		}
		u, ok := m.Table.URLFor(k)
		if !ok {
			return nil, ptm.Errorf(ptm.NodeMissingPeerURL, "no known instance hosts %s", k)
		}
		if m.isSelf(u) || slices.ContainsFunc(out, func(t target) bool { return t.url == u }) {
			continue
		}
		out = append(out, target{url: u, member: k})
	}
	return out, nil
}

// groupSigner returns the hosted member that authenticates a group's
// pushes: from when it is hosted here, else the first hosted member.
func (m *Manager) groupSigner(members []keys.PublicKey, from keys.PublicKey) (keys.PublicKey, error) {
	if m.Enclave.Hosts(from) {
		return from, nil
	}
	for _, k := range members {
		if m.Enclave.Hosts(k) {
			return k, nil
		}
	}
	return keys.PublicKey{}, ptm.Errorf(ptm.EnclaveNoMatchingPrivateKey, "no member of the privacy group is hosted here to authenticate its push")
}

// pushGroup sends g to targets concurrently, authenticated by a hosted
// member (see GroupAuthHeader); each must answer with id.
func (m *Manager) pushGroup(ctx context.Context, targets []target, members []keys.PublicKey, from keys.PublicKey, id string, g *payload.PrivacyGroup) error {
	if len(targets) == 0 {
		return nil
	}
	signer, err := m.groupSigner(members, from)
	if err != nil {
		return err
	}
	body, err := g.MarshalCBOR()
	if err != nil {
		return ptm.Wrap(ptm.PrivacyGroupNotPushed, err)
	}
	errs := make([]error, len(targets))
	var wg sync.WaitGroup
	for i, t := range targets {
		auth, err := m.signGroupPush(body, signer, t.member)
		if err != nil {
			return ptm.Wrap(ptm.PrivacyGroupNotPushed, err)
		}
		wg.Go(func() {
			got, err := m.Peers.PushGroup(ctx, t.url, body, auth)
			if err == nil && got != id {
				err = &PeerStatusError{URL: t.url, Status: 200, Body: got}
			}
			errs[i] = err
		})
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			m.log().Warn("privacy group push failed", "url", targets[i].url, "err", err)
			return pushFailure(fmt.Errorf("push privacy group to %s: %w", targets[i].url, err))
		}
	}
	return nil
}
