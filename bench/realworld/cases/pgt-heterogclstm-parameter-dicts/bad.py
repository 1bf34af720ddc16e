"""Heterogeneous graph LSTM layer (reconstruction of nn/hetero/heterogclstm.py)."""

import torch
from torch import nn
from torch.nn import Parameter


def glorot(tensor):
    bound = (6.0 / (tensor.size(-2) + tensor.size(-1))) ** 0.5
    tensor.data.uniform_(-bound, bound)


class TypedMixer(nn.Module):
    """Stands in for HeteroConv: one linear map per node type over the hidden states."""

    def __init__(self, node_types, out_channels):
        super().__init__()
        self.maps = nn.ModuleDict({t: nn.Linear(out_channels, out_channels) for t in node_types})

    def forward(self, h_dict, edge_index_dict):
        return {t: self.maps[t](h) for t, h in h_dict.items()}


class HeteroGraphLSTM(nn.Module):
    def __init__(self, in_channels_dict, out_channels, metadata):
        super().__init__()
        self.in_channels_dict = in_channels_dict
        self.out_channels = out_channels
        self.metadata = metadata
        self._create_parameters_and_layers()
        self._set_parameters()

    def _create_input_gate_parameters_and_layers(self):
        self.conv_i = TypedMixer(self.metadata[0], self.out_channels)
        self.W_i = {nt: Parameter(torch.empty(ch, self.out_channels)) for nt, ch in self.in_channels_dict.items()}
        self.b_i = {nt: Parameter(torch.empty(1, self.out_channels)) for nt in self.in_channels_dict}

    def _create_forget_gate_parameters_and_layers(self):
        self.conv_f = TypedMixer(self.metadata[0], self.out_channels)
        self.W_f = {nt: Parameter(torch.empty(ch, self.out_channels)) for nt, ch in self.in_channels_dict.items()}
        self.b_f = {nt: Parameter(torch.empty(1, self.out_channels)) for nt in self.in_channels_dict}

    def _create_cell_state_parameters_and_layers(self):
        self.conv_c = TypedMixer(self.metadata[0], self.out_channels)
        self.W_c = {nt: Parameter(torch.empty(ch, self.out_channels)) for nt, ch in self.in_channels_dict.items()}
        self.b_c = {nt: Parameter(torch.empty(1, self.out_channels)) for nt in self.in_channels_dict}

    def _create_output_gate_parameters_and_layers(self):
        self.conv_o = TypedMixer(self.metadata[0], self.out_channels)
        self.W_o = {nt: Parameter(torch.empty(ch, self.out_channels)) for nt, ch in self.in_channels_dict.items()}
        self.b_o = {nt: Parameter(torch.empty(1, self.out_channels)) for nt in self.in_channels_dict}

    def _create_parameters_and_layers(self):
        self._create_input_gate_parameters_and_layers()
        self._create_forget_gate_parameters_and_layers()
        self._create_cell_state_parameters_and_layers()
        self._create_output_gate_parameters_and_layers()

    def _set_parameters(self):
        for table in (self.W_i, self.W_f, self.W_c, self.W_o, self.b_i, self.b_f, self.b_c, self.b_o):
            for key in table:
                glorot(table[key])

    def _calculate_input_gate(self, x_dict, edge_index_dict, h_dict):
        i_dict = {nt: torch.matmul(x, self.W_i[nt]) for nt, x in x_dict.items()}
        i_dict = {nt: v + self.conv_i(h_dict, edge_index_dict)[nt] for nt, v in i_dict.items()}
        i_dict = {nt: v + self.b_i[nt] for nt, v in i_dict.items()}
        return {nt: torch.sigmoid(v) for nt, v in i_dict.items()}

    def _calculate_forget_gate(self, x_dict, edge_index_dict, h_dict):
        f_dict = {nt: torch.matmul(x, self.W_f[nt]) for nt, x in x_dict.items()}
        f_dict = {nt: v + self.conv_f(h_dict, edge_index_dict)[nt] for nt, v in f_dict.items()}
        f_dict = {nt: v + self.b_f[nt] for nt, v in f_dict.items()}
        return {nt: torch.sigmoid(v) for nt, v in f_dict.items()}

    def _calculate_cell_state(self, x_dict, edge_index_dict, h_dict, c_dict, i_dict, f_dict):
        t_dict = {nt: torch.matmul(x, self.W_c[nt]) for nt, x in x_dict.items()}
        t_dict = {nt: v + self.conv_c(h_dict, edge_index_dict)[nt] for nt, v in t_dict.items()}
        t_dict = {nt: torch.tanh(v + self.b_c[nt]) for nt, v in t_dict.items()}
        return {nt: f_dict[nt] * c + i_dict[nt] * t_dict[nt] for nt, c in c_dict.items()}

    def _calculate_output_gate(self, x_dict, edge_index_dict, h_dict):
        o_dict = {nt: torch.matmul(x, self.W_o[nt]) for nt, x in x_dict.items()}
        o_dict = {nt: v + self.conv_o(h_dict, edge_index_dict)[nt] for nt, v in o_dict.items()}
        o_dict = {nt: v + self.b_o[nt] for nt, v in o_dict.items()}
        return {nt: torch.sigmoid(v) for nt, v in o_dict.items()}

    def forward(self, x_dict, edge_index_dict, h_dict, c_dict):
        i_dict = self._calculate_input_gate(x_dict, edge_index_dict, h_dict)
        f_dict = self._calculate_forget_gate(x_dict, edge_index_dict, h_dict)
        c_dict = self._calculate_cell_state(x_dict, edge_index_dict, h_dict, c_dict, i_dict, f_dict)
        o_dict = self._calculate_output_gate(x_dict, edge_index_dict, h_dict)
        h_dict = {nt: o_dict[nt] * torch.tanh(c) for nt, c in c_dict.items()}
        return h_dict, c_dict


def run(device):
    metadata = (["author", "paper"], [("author", "writes", "paper")])
    layer = HeteroGraphLSTM({"author": 4, "paper": 6}, 8, metadata).to(device)
    x_dict = {"author": torch.rand(3, 4, device=device), "paper": torch.rand(5, 6, device=device)}
    h_dict = {nt: torch.zeros(x.shape[0], 8, device=device) for nt, x in x_dict.items()}
    c_dict = {nt: torch.zeros(x.shape[0], 8, device=device) for nt, x in x_dict.items()}
    return layer(x_dict, {}, h_dict, c_dict)


if __name__ == "__main__":
    run(torch.device("cuda" if torch.cuda.is_available() else "cpu"))
