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
	urls, err := m.peerURLs(members)
	if err != nil {
		return nil, err
	}
	if err := m.pushGroup(ctx, urls, id, g); err != nil {
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
// hosting a member other than from, stores it and drops it from the index.
func (m *Manager) DeleteGroup(ctx context.Context, id string, from *string) (string, error) {
	g, err := m.getGroup(ctx, id)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return "", ptm.Wrap(ptm.PrivacyGroupNotDeleted, err)
	}
	if err != nil || g.State != payload.Active {
		return "", ptm.Errorf(ptm.PrivacyGroupNotDeleted, "privacy group %q does not exist or is deleted", id)
	}
	var others []keys.PublicKey
	for _, a := range g.Addresses {
		if from != nil && a == *from {
			continue
		}
		k, err := keys.ParsePublicKey(a)
		if err != nil {
			return "", ptm.Wrap(ptm.EnclaveDecodePublicKey, err)
		}
		others = append(others, k)
	}
	urls, err := m.peerURLs(others)
	if err != nil {
		return "", err
	}
	g.State = payload.Deleted
	if err := m.pushGroup(ctx, urls, id, g); err != nil {
		return "", err
	}
	if err := m.storeGroup(ctx, id, g); err != nil {
		return "", err
	}
	return id, nil
}

// FindGroups returns the ACTIVE groups whose member set is exactly addresses
// (order and duplicates ignored).
func (m *Manager) FindGroups(ctx context.Context, addresses []string) ([]Group, error) {
	members, err := payload.ParseKeys(addresses)
	if err != nil {
		return nil, ptm.Wrap(ptm.EnclaveDecodePublicKey, err)
	}
	out := []Group{}
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
// PrivacyGroupNotFound.
func (m *Manager) RetrieveGroup(ctx context.Context, id string) (*Group, error) {
	g, err := m.getGroup(ctx, id)
	if err != nil && !errors.Is(err, storage.ErrNotFound) {
		return nil, ptm.Wrap(ptm.PrivacyGroupQueryError, err)
	}
	if err != nil || g.State != payload.Active {
		return nil, ptm.Errorf(ptm.PrivacyGroupNotFound, "privacy group %q not found", id)
	}
	v := groupView(id, g)
	return &v, nil
}

// peerURLs returns the distinct node URLs, other than this instance's,
// hosting keys (in first-seen order). A key hosted here needs no URL.
func (m *Manager) peerURLs(ks []keys.PublicKey) ([]string, error) {
	var out []string
	for _, k := range ks {
		if m.Enclave.Hosts(k) {
			continue
		}
		u, ok := m.Table.URLFor(k)
		if !ok {
			return nil, ptm.Errorf(ptm.NodeMissingPeerURL, "no known instance hosts %s", k)
		}
		if m.isSelf(u) || slices.Contains(out, u) {
			continue
		}
		out = append(out, u)
	}
	return out, nil
}

// pushGroup sends g to urls concurrently; each must answer with id.
func (m *Manager) pushGroup(ctx context.Context, urls []string, id string, g *payload.PrivacyGroup) error {
	errs := make([]error, len(urls))
	var wg sync.WaitGroup
	for i, u := range urls {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got, err := m.Peers.PushGroup(ctx, u, g)
			if err == nil && got != id {
				err = &PeerStatusError{URL: u, Status: 200, Body: got}
			}
			errs[i] = err
		}()
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			m.log().Warn("privacy group push failed", "url", urls[i], "err", err)
			return pushFailure(fmt.Errorf("push privacy group to %s: %w", urls[i], err))
		}
	}
	return nil
}
