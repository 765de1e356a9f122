extends RefCounted
## The client MultiplayerPeer a URL names, for main.gd and api.gd: ws://HOST:PORT joins with
## WebSocketMultiplayerPeer.create_client, enet://HOST:PORT with
## ENetMultiplayerPeer.create_client. null (the error printed) when it cannot start.


static func peer_for(url: String) -> MultiplayerPeer:
	var err: Error
	var peer: MultiplayerPeer
	if url.begins_with("enet://"):
		var address := url.trim_prefix("enet://")
		var enet := ENetMultiplayerPeer.new()
		err = enet.create_client(address.get_slice(":", 0), int(address.get_slice(":", 1)))
		peer = enet
	else:
		var ws := WebSocketMultiplayerPeer.new()
		err = ws.create_client(url)
		peer = ws
	if err != OK:
		printerr("cannot connect: ", err)
		return null
	return peer
