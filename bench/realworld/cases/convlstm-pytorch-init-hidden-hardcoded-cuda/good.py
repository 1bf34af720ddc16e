"""Stacked ConvLSTM module (reconstruction of convlstm.py)."""

import torch
from torch import nn


class ConvLSTMCell(nn.Module):
    def __init__(self, input_size, input_dim, hidden_dim, kernel_size, bias):
        super().__init__()
        self.height, self.width = input_size
        self.hidden_dim = hidden_dim
        self.conv = nn.Conv2d(input_dim + hidden_dim, 4 * hidden_dim, kernel_size,
                              padding=(kernel_size[0] // 2, kernel_size[1] // 2), bias=bias)

    def forward(self, frame, state):
        h_cur, c_cur = state
        gates = self.conv(torch.cat([frame, h_cur], dim=1))
        i, f, o, g = torch.split(gates, self.hidden_dim, dim=1)
        c_next = torch.sigmoid(f) * c_cur + torch.sigmoid(i) * torch.tanh(g)
        h_next = torch.sigmoid(o) * torch.tanh(c_next)
        return h_next, c_next

    def init_hidden(self, batch_size):
        shape = (batch_size, self.hidden_dim, self.height, self.width)
        device = self.conv.weight.device
        return torch.zeros(shape, device=device), torch.zeros(shape, device=device)


class ConvLSTM(nn.Module):
    def __init__(self, input_size, input_dim, hidden_dim, kernel_size, num_layers, batch_first=False):
        super().__init__()
        self.num_layers = num_layers
        self.batch_first = batch_first
        cells = []
        for i in range(num_layers):
            cells.append(ConvLSTMCell(input_size, input_dim if i == 0 else hidden_dim, hidden_dim, kernel_size, True))
        self.cell_list = nn.ModuleList(cells)

    def forward(self, frames, hidden_state=None):
        if not self.batch_first:
            frames = frames.permute(1, 0, 2, 3, 4)
        if hidden_state is not None:
            raise NotImplementedError()
        hidden_state = self._init_hidden(batch_size=frames.size(0))

        layer_input = frames
        last_states = []
        for layer_idx in range(self.num_layers):
            h, c = hidden_state[layer_idx]
            outputs = []
            for t in range(layer_input.size(1)):
                h, c = self.cell_list[layer_idx](layer_input[:, t], [h, c])
                outputs.append(h)
            layer_input = torch.stack(outputs, dim=1)
            last_states.append([h, c])
        return layer_input, last_states

    def _init_hidden(self, batch_size):
        states = []
        for i in range(self.num_layers):
            states.append(self.cell_list[i].init_hidden(batch_size))
        return states


def main(device):
    model = ConvLSTM((8, 8), 3, 4, (3, 3), num_layers=2, batch_first=True).to(device)
    clip = torch.rand(2, 5, 3, 8, 8, device=device)
    return model(clip)


if __name__ == "__main__":
    main(torch.device("cpu"))
