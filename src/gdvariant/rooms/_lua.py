"""The Lua scripts that make the Redis directory's steps atomic.

Redis runs a script whole, with no other command in between: each script here is one step
of :class:`gdvariant.rooms.redis.RedisDirectory` that reads and then writes (reserve a seat,
claim it, renew a lease, remove an empty room). Times are Redis's own (``TIME``), so the
clocks of matchmakers and room processes never have to agree. Keys (``NS`` the namespace):

* ``NS:procs`` (set) and ``NS:proc:<id>`` (hash: ``info`` JSON), the lease: ``PEXPIRE``.
* ``NS:rooms`` (set) and ``NS:room:<id>`` (hash: ``info`` JSON, ``name``, ``process``,
  ``seats``, ``locked``), with the process's lease.
* ``NS:room:<id>:res`` (sorted set: token by expiry, ms) and ``:users`` (hash: token to
  user) for reservations; ``NS:room:<id>:seats`` (hash: token to user) for seated clients.

The index sets are cleaned as they are read: a room or process whose hash expired is dropped
from them there. Scripts build the keys of a room's process from ``NS`` (standalone Redis,
not Redis Cluster; docs/rooms.md says why that is enough here).
"""

from __future__ import annotations

__all__ = ["CLAIM", "DISPOSE", "HEARTBEAT", "LIST", "RESERVE"]

_NOW = "local t = redis.call('TIME') local now = t[1] * 1000 + math.floor(t[2] / 1000)\n"

#: KEYS: room, res, users, seats. ARGV: ns, token, user, ttl ms. -> 'ok' or an error code.
RESERVE = (
    _NOW
    + """
local f = redis.call('HMGET', KEYS[1], 'process', 'locked', 'seats')
if not f[1] or redis.call('EXISTS', ARGV[1] .. ':proc:' .. f[1]) == 0 then
  return 'room_not_found'
end
if f[2] == '1' then return 'room_locked' end
local stale = redis.call('ZRANGEBYSCORE', KEYS[2], '-inf', now)
for _, token in ipairs(stale) do
  redis.call('ZREM', KEYS[2], token)
  redis.call('HDEL', KEYS[3], token)
end
if redis.call('ZCARD', KEYS[2]) + redis.call('HLEN', KEYS[4]) >= tonumber(f[3]) then
  return 'room_full'
end
redis.call('ZADD', KEYS[2], now + tonumber(ARGV[4]), ARGV[2])
redis.call('HSET', KEYS[3], ARGV[2], ARGV[3])
local life = redis.call('PTTL', KEYS[1])
if life > 0 then
  redis.call('PEXPIRE', KEYS[2], life)
  redis.call('PEXPIRE', KEYS[3], life)
end
return 'ok'
"""
)

#: KEYS: room, res, users, seats. ARGV: token. -> the user (a string) or false.
CLAIM = (
    _NOW
    + """
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local expires = redis.call('ZSCORE', KEYS[2], ARGV[1])
if not expires then return false end
local user = redis.call('HGET', KEYS[3], ARGV[1]) or ''
redis.call('ZREM', KEYS[2], ARGV[1])
redis.call('HDEL', KEYS[3], ARGV[1])
if tonumber(expires) <= now then return false end
redis.call('HSET', KEYS[4], ARGV[1], user)
local life = redis.call('PTTL', KEYS[1])
if life > 0 then redis.call('PEXPIRE', KEYS[4], life) end
return user
"""
)

#: KEYS: room, res, users, seats, rooms index. ARGV: room id. -> 1 removed, 0 in use.
DISPOSE = (
    _NOW
    + """
if redis.call('HLEN', KEYS[4]) > 0 then return 0 end
if redis.call('ZCOUNT', KEYS[2], '(' .. now, '+inf') > 0 then return 0 end
redis.call('DEL', KEYS[1], KEYS[2], KEYS[3], KEYS[4])
redis.call('SREM', KEYS[5], ARGV[1])
return 1
"""
)

#: KEYS: proc, procs index, rooms index. ARGV: ns, process id, ttl ms, create ('1': add the
#: rooms missing; '0': renew only those that exist, so a room disposed while this heartbeat
#: was on its way is not brought back), then six per room: id, info JSON, name, seats,
#: locked, seated (a JSON object token -> user that replaces the room's seated clients: a
#: room brought back after its lease lapsed; '' leaves them). -> 1 renewed, 0 the lease had
#: lapsed (nothing written).
HEARTBEAT = """
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local ttl = tonumber(ARGV[3])
redis.call('PEXPIRE', KEYS[1], ttl)
redis.call('SADD', KEYS[2], ARGV[2])
for i = 5, #ARGV, 6 do
  local key = ARGV[1] .. ':room:' .. ARGV[i]
  if ARGV[4] == '1' or redis.call('EXISTS', key) == 1 then
    redis.call('HSET', key, 'info', ARGV[i + 1], 'name', ARGV[i + 2], 'process', ARGV[2],
      'seats', ARGV[i + 3], 'locked', ARGV[i + 4])
    if ARGV[i + 5] ~= '' then
      redis.call('DEL', key .. ':seats')
      for token, user in pairs(cjson.decode(ARGV[i + 5])) do
        redis.call('HSET', key .. ':seats', token, user)
      end
    end
    for _, k in ipairs({key, key .. ':res', key .. ':users', key .. ':seats'}) do
      redis.call('PEXPIRE', k, ttl)
    end
    redis.call('SADD', KEYS[3], ARGV[i])
  end
end
return 1
"""

#: KEYS: rooms index. ARGV: ns, name ('' for all), room id ('' for all). -> per live room:
#: info JSON, locked, clients, reserved, users (a JSON list).
LIST = (
    _NOW
    + """
local ids = redis.call('SMEMBERS', KEYS[1])
if ARGV[3] ~= '' then ids = {ARGV[3]} end
local out = {}
for _, id in ipairs(ids) do
  local key = ARGV[1] .. ':room:' .. id
  local f = redis.call('HMGET', key, 'info', 'process', 'locked', 'name')
  if not f[1] then
    redis.call('SREM', KEYS[1], id)
  elseif redis.call('EXISTS', ARGV[1] .. ':proc:' .. f[2]) == 1
      and (ARGV[2] == '' or ARGV[2] == f[4]) then
    local users = redis.call('HVALS', key .. ':seats')
    local listed = '[]'
    if #users > 0 then listed = cjson.encode(users) end
    table.insert(out, {f[1], f[3] or '0', #users,
      redis.call('ZCOUNT', key .. ':res', '(' .. now, '+inf'), listed})
  end
end
return out
"""
)
