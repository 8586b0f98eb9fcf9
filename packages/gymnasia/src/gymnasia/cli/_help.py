"""``--help`` in the person's language: the ``help`` section of ``gymnasia.i18n``.

The commands declare their help in English (``help=`` and docstrings, as Typer reads them);
each English text is the key of its entry here, gettext-style, so an option shared by many
commands (``--db``) is translated once, and a help text that changes in English has no entry
until it is translated again (``tests/gymnasia/test_i18n_help.py`` fails on any). The help is
translated when it is written out, by the formatter ``install`` gives the command line, so no
command is loaded or changed to be translated.
"""

from __future__ import annotations

import re
import textwrap
from collections.abc import Sequence
from typing import TYPE_CHECKING, Any, Final

from ..i18n import entry, register
from ..rules import MEASUREMENT_LIMITS
from ..store import MEASUREMENT_FIELDS
from ..texts import t
from ._base import SESSION

if TYPE_CHECKING:
    from surefoot import Lang

_ES_PT: Final[dict[str, tuple[str, str]]] = {
    # -- the words of the help screens themselves ------------------------------------------
    "Usage:": ("Uso:", "Uso:"),
    "Options": ("Opciones", "Opções"),
    "Arguments": ("Argumentos", "Argumentos"),
    "Commands": ("Órdenes", "Comandos"),
    "Show this message and exit.": ("Muestra esta ayuda y termina.", "Mostra esta ajuda e sai."),
    "required": ("obligatorio", "obrigatório"),
    "default:": ("por defecto:", "padrão:"),
    "env var:": ("variable de entorno:", "variável de ambiente:"),
    "[OPTIONS]": ("[OPCIONES]", "[OPÇÕES]"),
    "COMMAND [ARGS]...": ("ORDEN [ARGUMENTOS]...", "COMANDO [ARGUMENTOS]..."),
    # -- gymnasia and the options many commands share -----------------------------------------
    "Gymnasia Coach: a fitness coach over your own data, built on the surefoot harness.": (
        (
            "Gymnasia Coach: un entrenador sobre tus propios datos, construido sobre el arnés "
            "surefoot."
        ),
        (
            "Gymnasia Coach: um treinador sobre seus próprios dados, construído sobre o harness "
            "surefoot."
        ),
    ),
    "Print the versions of gymnasia and surefoot, then exit.": (
        "Muestra las versiones de gymnasia y surefoot, y termina.",
        "Mostra as versões de gymnasia e surefoot e sai.",
    ),
    "Export OpenTelemetry spans of turns, model requests and tool calls (OTLP, configured by "
    "the OTEL_EXPORTER_OTLP_* variables; the otel extra).": (
        (
            "Exporta spans de OpenTelemetry de los turnos, las peticiones al modelo y las llamadas "
            "a herramientas (OTLP, configurado con las variables OTEL_EXPORTER_OTLP_*; el extra "
            "otel)."
        ),
        (
            "Exporta spans de OpenTelemetry dos turnos, das requisições ao modelo e das chamadas a "
            "ferramentas (OTLP, configurado pelas variáveis OTEL_EXPORTER_OTLP_*; o extra otel)."
        ),
    ),
    "SQLite file, sqlite:///path, or postgresql://... URL (GYMNASIA_DB). A SQLite database "
    "locked by another process is waited for GYMNASIA_DB_TIMEOUT seconds (30), a PostgreSQL "
    "server that does not answer as many (10).": (
        (
            "Archivo SQLite, sqlite:///ruta o URL postgresql://... (GYMNASIA_DB). Si otro proceso "
            "tiene bloqueada una base SQLite, se espera GYMNASIA_DB_TIMEOUT segundos (30); a un "
            "servidor PostgreSQL que no responde, otros tantos (10)."
        ),
        (
            "Arquivo SQLite, sqlite:///caminho ou URL postgresql://... (GYMNASIA_DB). Se outro "
            "processo bloqueia um banco SQLite, espera-se GYMNASIA_DB_TIMEOUT segundos (30); por "
            "um servidor PostgreSQL que não responde, outros tantos (10)."
        ),
    ),
    "offline (default, rule-based), anthropic, openai, google or openai-chat.": (
        "offline (por defecto, por reglas), anthropic, openai, google u openai-chat.",
        "offline (padrão, por regras), anthropic, openai, google ou openai-chat.",
    ),
    "The provider's model name.": (
        "El nombre del modelo en el proveedor.",
        "O nome do modelo no provedor.",
    ),
    "Talk to another endpoint (a local server).": (
        "Habla con otro endpoint (un servidor local).",
        "Fala com outro endpoint (um servidor local).",
    ),
    "API key (default: the usual variables).": (
        "Clave de API (por defecto: las variables habituales).",
        "Chave de API (padrão: as variáveis de costume).",
    ),
    "Language: es, pt or en.": ("Idioma: es, pt o en.", "Idioma: es, pt ou en."),
    "Whose data (one database, many users).": (
        "De quién son los datos (una base de datos, muchos usuarios).",
        "De quem são os dados (um banco de dados, muitos usuários).",
    ),
    "QA only: make TOOL fail as MODE, TOOL:MODE; read_error for a read, before_commit, "
    "after_commit or ambiguous for a write; repeatable.": (
        (
            "Solo para pruebas: hace fallar TOOL según MODE, TOOL:MODE; read_error para una "
            "lectura, before_commit, after_commit o ambiguous para una escritura; repetible."
        ),
        (
            "Só para testes: faz TOOL falhar conforme MODE, TOOL:MODE; read_error para uma "
            "leitura, before_commit, after_commit ou ambiguous para uma escrita; repetível."
        ),
    ),
    "Machine-readable output.": ("Salida para programas (JSON).", "Saída para programas (JSON)."),
    "Fix 'today' (YYYY-MM-DD; GYMNASIA_TODAY).": (
        "Fija «hoy» (AAAA-MM-DD; GYMNASIA_TODAY).",
        "Fixa «hoje» (AAAA-MM-DD; GYMNASIA_TODAY).",
    ),
    "Model request timeout (s).": (
        "Tiempo máximo de una petición al modelo (s).",
        "Tempo máximo de uma requisição ao modelo (s).",
    ),
    "Show the reply as it arrives (default: yes, except under --json).": (
        "Muestra la respuesta según llega (por defecto sí, salvo con --json).",
        "Mostra a resposta à medida que chega (padrão: sim, exceto com --json).",
    ),
    "GitHub API for feature requests (default: GYMNASIA_GITHUB_API_URL or "
    "https://api.github.com).": (
        (
            "API de GitHub para las peticiones de funciones (por defecto: GYMNASIA_GITHUB_API_URL "
            "o https://api.github.com)."
        ),
        (
            "API do GitHub para os pedidos de funcionalidades (padrão: GYMNASIA_GITHUB_API_URL ou "
            "https://api.github.com)."
        ),
    ),
    "Do not ask for confirmation.": ("No pide confirmación.", "Não pede confirmação."),
    "Only this conversation (its ID).": (
        "Solo esta conversación (su ID).",
        "Só esta conversa (o ID dela).",
    ),
    "The provider the turn runs on (default: the one it was started with).": (
        "El proveedor en el que sigue el turno (por defecto: el que lo empezó).",
        "O provedor em que o turno continua (padrão: o que o começou).",
    ),
    # -- the Coach ---------------------------------------------------------------------------
    "Ask the Coach one thing (one user turn): its reply and, when something was saved or "
    "waits for your approval, one line saying so.": (
        (
            "Pregunta una cosa al Coach (un turno): su respuesta y, si se guardó algo o algo "
            "espera tu aprobación, una línea que lo dice."
        ),
        (
            "Pergunta uma coisa ao Coach (um turno): a resposta e, se algo foi salvo ou aguarda a "
            "sua aprovação, uma linha que diz isso."
        ),
    ),
    "Talk with the Coach interactively, with line editing and a history (Ctrl-D leaves; "
    "Ctrl-C interrupts, exit code 130).": (
        (
            "Habla con el Coach en una conversación, con edición de línea e historial (Ctrl-D "
            "para salir; Ctrl-C interrumpe, código de salida 130)."
        ),
        (
            "Conversa com o Coach, com edição de linha e histórico (Ctrl-D para sair; Ctrl-C "
            "interrompe, código de saída 130)."
        ),
    ),
    "Also show the trace: each tool call with its arguments and outcome, the stop reason and "
    "the number of model requests.": (
        (
            "Muestra también la traza: cada llamada a una herramienta con sus argumentos y su "
            "resultado, el motivo de parada y el número de peticiones al modelo."
        ),
        (
            "Mostra também o rastro: cada chamada de ferramenta com seus argumentos e resultado, o "
            "motivo da parada e o número de requisições ao modelo."
        ),
    ),
    "Ask the Coach one thing (one user turn).": (
        "Pregunta una cosa al Coach (un turno).",
        "Pergunta uma coisa ao Coach (um turno).",
    ),
    "What to ask the Coach.": ("Lo que preguntas al Coach.", "O que você pergunta ao Coach."),
    "Continue this conversation.": ("Continúa esta conversación.", "Continua esta conversa."),
    "Talk with the Coach interactively (Ctrl-D to leave).": (
        "Habla con el Coach en una conversación (Ctrl-D para salir).",
        "Conversa com o Coach (Ctrl-D para sair).",
    ),
    "Run the acceptance scenarios offline on a temporary database, with a readable trace.": (
        (
            "Ejecuta los escenarios de aceptación sin conexión sobre una base temporal, con una "
            "traza legible."
        ),
        "Executa os cenários de aceitação offline em um banco temporário, com um rastro legível.",
    ),
    "Print all of the user's data as one JSON object (for backups and moving).": (
        "Escribe todos los datos del usuario como un objeto JSON (para copias y mudanzas).",
        "Escreve todos os dados do usuário como um objeto JSON (para backups e mudanças).",
    ),
    "Load what 'gymnasia export' wrote into --user's data, all of it or nothing: a malformed "
    "file changes nothing, and a user who already has data is refused unless --replace.": (
        (
            "Carga lo que escribió «gymnasia export» en los datos de --user, todo o nada: un "
            "archivo mal formado no cambia nada, y un usuario que ya tiene datos se rechaza salvo "
            "con --replace."
        ),
        (
            "Carrega o que «gymnasia export» escreveu nos dados de --user, tudo ou nada: um "
            "arquivo malformado não muda nada, e um usuário que já tem dados é recusado, a não "
            "ser com --replace."
        ),
    ),
    "A file 'gymnasia export' wrote ('-': stdin).": (
        "Un archivo que escribió «gymnasia export» («-»: la entrada estándar).",
        "Um arquivo que «gymnasia export» escreveu («-»: a entrada padrão).",
    ),
    "Swap the user's existing data for the file's.": (
        "Cambia los datos que ya tiene el usuario por los del archivo.",
        "Troca os dados que o usuário já tem pelos do arquivo.",
    ),
    "Local diagnostics of failed tool calls (exception, traceback), keys redacted.": (
        (
            "Diagnósticos locales de las llamadas a herramientas que fallaron (excepción, "
            "traceback), con las claves ocultas."
        ),
        (
            "Diagnósticos locais das chamadas a ferramentas que falharam (exceção, traceback), com "
            "as chaves ocultas."
        ),
    ),
    "Finish a turn that was interrupted (settling unconfirmed writes first) on the model it "
    "was started with; nothing that committed is done again.": (
        (
            "Termina un turno interrumpido (primero aclara las escrituras sin confirmar) con el "
            "modelo con que empezó; nada de lo que se guardó se repite."
        ),
        (
            "Termina um turno interrompido (primeiro esclarece as escritas não confirmadas) com o "
            "modelo com que começou; nada do que foi salvo é repetido."
        ),
    ),
    "The conversation to finish.": ("La conversación que terminar.", "A conversa a terminar."),
    "Every write the agent attempted, with its ledger state: where to check a write whose "
    "outcome was unknown.": (
        (
            "Cada escritura que intentó el agente, con su estado en el registro: donde comprobar "
            "una escritura cuyo resultado no se supo."
        ),
        (
            "Cada escrita que o agente tentou, com seu estado no registro: onde conferir uma "
            "escrita cujo resultado não se soube."
        ),
    ),
    "pending, committed, failed or unknown.": (
        "pending, committed, failed o unknown.",
        "pending, committed, failed ou unknown.",
    ),
    "Settle unconfirmed writes now (by the ledger or the tool's own check).": (
        (
            "Aclara ahora las escrituras sin confirmar (por el registro o por la comprobación de "
            "la herramienta)."
        ),
        (
            "Esclarece agora as escritas não confirmadas (pelo registro ou pela verificação da "
            "ferramenta)."
        ),
    ),
    "Erase all of the user's data (measurements, notes, meals, routines, goals, conversations, "
    "the record of writes, confirmations and diagnostics) in one transaction; asks first.": (
        (
            "Borra todos los datos del usuario (medidas, notas, comidas, rutinas, objetivos, "
            "conversaciones, el registro de escrituras, confirmaciones y diagnósticos) en una "
            "transacción; antes pregunta."
        ),
        (
            "Exclui todos os dados do usuário (medidas, notas, refeições, rotinas, metas, "
            "conversas, o registro de escritas, confirmações e diagnósticos) em uma transação; "
            "antes pergunta."
        ),
    ),
    "Run the web app: chat with a tool trace and confirmations, and pages for your data and "
    "for the Coach's writes.": (
        (
            "Arranca la aplicación web: chat con traza de herramientas y confirmaciones, y páginas "
            "para tus datos y para las escrituras del Coach."
        ),
        (
            "Inicia o aplicativo web: chat com rastreamento de ferramentas e confirmações, e "
            "páginas para seus dados e para as escritas do Coach."
        ),
    ),
    "Address to bind (loopback unless --allow-remote).": (
        "Dirección en la que escuchar (loopback salvo con --allow-remote).",
        "Endereço em que escutar (loopback, a não ser com --allow-remote).",
    ),
    "Port to listen on.": ("Puerto en el que escuchar.", "Porta em que escutar."),
    "Allow a non-loopback --host (needs a token).": (
        "Permite un --host que no sea loopback (requiere un token).",
        "Permite um --host que não seja loopback (exige um token).",
    ),
    "Require this token on every request (cookie, header or ?token= once).": (
        "Exige este token en cada petición (cookie, cabecera o ?token= una vez).",
        "Exige este token em cada requisição (cookie, cabeçalho ou ?token= uma vez).",
    ),
    "Serve the Coach's tools over the Model Context Protocol (for a desktop assistant or an "
    "IDE): same data, same ledger, same error contract as ``ask``.": (
        (
            "Sirve las herramientas del Coach por el Model Context Protocol (para un asistente de "
            "escritorio o un IDE): los mismos datos, el mismo registro y el mismo contrato de "
            "errores que «ask»."
        ),
        (
            "Serve as ferramentas do Coach pelo Model Context Protocol (para um assistente de "
            "desktop ou um IDE): os mesmos dados, o mesmo registro e o mesmo contrato de erros que "
            "«ask»."
        ),
    ),
    "stdio (default) or http (Streamable HTTP).": (
        "stdio (por defecto) o http (Streamable HTTP).",
        "stdio (padrão) ou http (Streamable HTTP).",
    ),
    "HTTP: loopback address to bind.": (
        "HTTP: dirección loopback en la que escuchar.",
        "HTTP: endereço loopback em que escutar.",
    ),
    "HTTP: port to listen on.": ("HTTP: puerto en el que escuchar.", "HTTP: porta em que escutar."),
    # -- approvals ---------------------------------------------------------------------------
    "Confirm or refuse actions waiting for a person.": (
        "Confirma o rechaza las acciones que esperan a una persona.",
        "Confirma ou recusa as ações que aguardam uma pessoa.",
    ),
    "List actions waiting for a person's decision.": (
        "Lista las acciones que esperan la decisión de una persona.",
        "Lista as ações que aguardam a decisão de uma pessoa.",
    ),
    "Approve a pending action: it runs now, once, and the turn continues on its model.": (
        "Aprueba una acción pendiente: se ejecuta ahora, una vez, y el turno sigue en su modelo.",
        (
            "Aprova uma ação pendente: ela é executada agora, uma vez, e o turno continua no seu "
            "modelo."
        ),
    ),
    "The action ('approvals list').": (
        "La acción («approvals list»).",
        "A ação («approvals list»).",
    ),
    "Refuse a pending action: it does not run, and the Coach (its model) is told so.": (
        "Rechaza una acción pendiente: no se ejecuta, y se le dice al Coach (a su modelo).",
        "Recusa uma ação pendente: ela não é executada, e o Coach (seu modelo) é avisado.",
    ),
    # -- measurements ------------------------------------------------------------------------
    "Read, add, correct and delete body measurements without the agent.": (
        "Lee, añade, corrige y borra medidas corporales sin el agente.",
        "Lê, adiciona, corrige e exclui medidas corporais sem o agente.",
    ),
    "List saved measurements, by date.": (
        "Lista las medidas guardadas, por fecha.",
        "Lista as medidas salvas, por data.",
    ),
    "First date (YYYY-MM-DD).": ("Primera fecha (AAAA-MM-DD).", "Primeira data (AAAA-MM-DD)."),
    "Last date (YYYY-MM-DD).": ("Última fecha (AAAA-MM-DD).", "Última data (AAAA-MM-DD)."),
    "Show the measurement of one date (exit 1 when there is none).": (
        "Muestra la medida de una fecha (sale con 1 si no hay ninguna).",
        "Mostra a medida de uma data (sai com 1 quando não há nenhuma).",
    ),
    "The date (YYYY-MM-DD).": ("La fecha (AAAA-MM-DD).", "A data (AAAA-MM-DD)."),
    "Save (upsert) a measurement directly: given fields replace, the others are kept.": (
        "Guarda una medida directamente: los campos dados sustituyen, los demás se mantienen.",
        "Salva uma medida diretamente: os campos dados substituem, os outros são mantidos.",
    ),
    "Correct an existing measurement: given fields replace, --clear empties, the rest is kept; "
    "--new-date moves it (exit 1 when the date has no record).": (
        (
            "Corrige una medida existente: los campos dados sustituyen, --clear vacía, el resto se "
            "mantiene; --new-date la mueve (sale con 1 si la fecha no tiene registro)."
        ),
        (
            "Corrige uma medida existente: os campos dados substituem, --clear esvazia, o resto é "
            "mantido; --new-date a move (sai com 1 quando a data não tem registro)."
        ),
    ),
    "The date of the record (YYYY-MM-DD).": (
        "La fecha del registro (AAAA-MM-DD).",
        "A data do registro (AAAA-MM-DD).",
    ),
    "Empty this field (e.g. --clear waist-cm); repeatable.": (
        "Vacía este campo (p. ej. --clear waist-cm); repetible.",
        "Esvazia este campo (por ex. --clear waist-cm); repetível.",
    ),
    "Move the record to this date.": (
        "Mueve el registro a esta fecha.",
        "Move o registro para esta data.",
    ),
    "Delete the measurement of one date (asks first; exit 1 when there is none).": (
        "Borra la medida de una fecha (antes pregunta; sale con 1 si no hay ninguna).",
        "Exclui a medida de uma data (antes pergunta; sai com 1 quando não há nenhuma).",
    ),
    # -- meals -------------------------------------------------------------------------------
    "Read, log, correct and delete meals without the agent.": (
        "Lee, anota, corrige y borra comidas sin el agente.",
        "Lê, registra, corrige e exclui refeições sem o agente.",
    ),
    "Show what was logged on a date: one meal, or every meal of the day and its totals.": (
        "Muestra lo anotado en una fecha: una comida, o todas las del día y sus totales.",
        "Mostra o que foi registrado em uma data: uma refeição, ou todas as do dia e seus totais.",
    ),
    "Only this meal (id or label).": (
        "Solo esta comida (id o nombre).",
        "Só esta refeição (id ou nome).",
    ),
    "Log an amount of one food in one meal (adds an item; never replaces).": (
        "Anota una cantidad de un alimento en una comida (añade una línea; nunca sustituye).",
        (
            "Registra uma quantidade de um alimento em uma refeição (adiciona um item; nunca "
            "substitui)."
        ),
    ),
    "The meal: an id or a label (es, pt, en).": (
        "La comida: un id o un nombre (es, pt, en).",
        "A refeição: um id ou um nome (es, pt, en).",
    ),
    "A food id ('gymnasia foods search').": (
        "Un id de alimento («gymnasia foods search»).",
        "Um id de alimento («gymnasia foods search»).",
    ),
    "How much, in grams (1-5000; 150 or 150,5).": (
        "Cuánto, en gramos (1-5000; 150 o 150,5).",
        "Quanto, em gramas (1-5000; 150 ou 150,5).",
    ),
    "Correct one logged food: its amount, the food, its meal or its date (exit 1 when there is "
    "no such item). Prints the meal it is now in.": (
        (
            "Corrige un alimento anotado: su cantidad, el alimento, su comida o su fecha (sale con "
            "1 si no existe). Muestra la comida en la que queda."
        ),
        (
            "Corrige um alimento registrado: a quantidade, o alimento, a refeição ou a data (sai "
            "com 1 quando não existe). Mostra a refeição em que ficou."
        ),
    ),
    "The item's id, as 'meals show' lists it.": (
        "El id de la línea, como lo muestra «meals show».",
        "O id do item, como «meals show» o mostra.",
    ),
    "New amount (1-5000; 150 or 150,5).": (
        "Nueva cantidad (1-5000; 150 o 150,5).",
        "Nova quantidade (1-5000; 150 ou 150,5).",
    ),
    "Another food id.": ("Otro id de alimento.", "Outro id de alimento."),
    "Move it to this meal.": ("Lo mueve a esta comida.", "Move para esta refeição."),
    "Move it to this date (YYYY-MM-DD).": (
        "Lo mueve a esta fecha (AAAA-MM-DD).",
        "Move para esta data (AAAA-MM-DD).",
    ),
    "Delete one logged food (asks first; exit 1 when there is no such item).": (
        "Borra un alimento anotado (antes pregunta; sale con 1 si no existe).",
        "Exclui um alimento registrado (antes pergunta; sai com 1 quando não existe).",
    ),
    # -- routines ----------------------------------------------------------------------------
    "Read and edit training routines without the agent.": (
        "Lee y edita rutinas de entrenamiento sin el agente.",
        "Lê e edita rotinas de treino sem o agente.",
    ),
    "List saved routines with their exercises and series.": (
        "Lista las rutinas guardadas con sus ejercicios y series.",
        "Lista as rotinas salvas com seus exercícios e séries.",
    ),
    "Save a new routine: its exercises in order, each with its series.": (
        "Guarda una rutina nueva: sus ejercicios en orden, cada uno con sus series.",
        "Salva uma rotina nova: seus exercícios em ordem, cada um com suas séries.",
    ),
    "The new routine's name.": ("El nombre de la rutina nueva.", "O nome da rotina nova."),
    "strength, hypertrophy, cardio or flexibility.": (
        "strength (fuerza), hypertrophy (hipertrofia), cardio o flexibility (flexibilidad).",
        "strength (força), hypertrophy (hipertrofia), cardio ou flexibility (flexibilidade).",
    ),
    "'ID SERIES...', a series being REPSxKG/REST: --exercise 'back_squat 5x100/180 "
    "5x100/180'; repeat for each exercise, in order.": (
        (
            "«ID SERIES...», cada serie REPSxKG/DESCANSO: --exercise 'back_squat 5x100/180 "
            "5x100/180'; repítelo para cada ejercicio, en orden."
        ),
        (
            "«ID SÉRIES...», cada série REPSxKG/DESCANSO: --exercise 'back_squat 5x100/180 "
            "5x100/180'; repita para cada exercício, em ordem."
        ),
    ),
    "Give a routine a new name (exit 1 when there is no such routine).": (
        "Cambia el nombre de una rutina (sale con 1 si no existe).",
        "Muda o nome de uma rotina (sai com 1 quando não existe).",
    ),
    "The routine's name (case and accents ignored).": (
        "El nombre de la rutina (sin importar mayúsculas ni tildes).",
        "O nome da rotina (sem diferenciar maiúsculas nem acentos).",
    ),
    "Its new name.": ("Su nombre nuevo.", "O novo nome."),
    "Add an exercise with its series to a routine, at the end or at --position.": (
        "Añade un ejercicio con sus series a una rutina, al final o en --position.",
        "Adiciona um exercício com suas séries a uma rotina, no fim ou em --position.",
    ),
    "An exercise id ('exercises search').": (
        "Un id de ejercicio («exercises search»).",
        "Um id de exercício («exercises search»).",
    ),
    "Its series, each REPSxKG/REST (8x22,5/90).": (
        "Sus series, cada una REPSxKG/DESCANSO (8x22,5/90).",
        "Suas séries, cada uma REPSxKG/DESCANSO (8x22,5/90).",
    ),
    "Where, from 1 (default: at the end).": (
        "Dónde, desde 1 (por defecto: al final).",
        "Onde, a partir de 1 (padrão: no fim).",
    ),
    "Remove the exercise at a position from a routine (asks first).": (
        "Quita de una rutina el ejercicio de una posición (antes pregunta).",
        "Remove de uma rotina o exercício de uma posição (antes pergunta).",
    ),
    "The exercise's place, from 1.": (
        "La posición del ejercicio, desde 1.",
        "A posição do exercício, a partir de 1.",
    ),
    "Put a routine's exercises in a new order (each keeps its series).": (
        "Pone los ejercicios de una rutina en otro orden (cada uno conserva sus series).",
        "Põe os exercícios de uma rotina em outra ordem (cada um mantém suas séries).",
    ),
    "Every current position once, in the new order: 3 1 2.": (
        "Cada posición actual una vez, en el orden nuevo: 3 1 2.",
        "Cada posição atual uma vez, na nova ordem: 3 1 2.",
    ),
    "Delete a routine with its exercises (asks first).": (
        "Borra una rutina con sus ejercicios (antes pregunta).",
        "Exclui uma rotina com seus exercícios (antes pergunta).",
    ),
    # -- the bundled tables ------------------------------------------------------------------
    "Search the bundled food table.": (
        "Busca en la tabla de alimentos incluida.",
        "Busca na tabela de alimentos incluída.",
    ),
    "Search the bundled food table (values per 100 g); every match is listed.": (
        (
            "Busca en la tabla de alimentos incluida (valores por 100 g); se listan todos los "
            "resultados."
        ),
        (
            "Busca na tabela de alimentos incluída (valores por 100 g); todos os resultados são "
            "listados."
        ),
    ),
    "Words of the name (any language).": (
        "Palabras del nombre (en cualquier idioma).",
        "Palavras do nome (em qualquer idioma).",
    ),
    "Only this category (cereals, dairy, ...).": (
        "Solo esta categoría (cereals, dairy, ...).",
        "Só esta categoria (cereals, dairy, ...).",
    ),
    "At most this many kcal per 100 g.": (
        "Como mucho estas kcal por 100 g.",
        "No máximo estas kcal por 100 g.",
    ),
    "At least this many g of protein per 100 g.": (
        "Al menos estos g de proteína por 100 g.",
        "Pelo menos estes g de proteína por 100 g.",
    ),
    "name; calories, carbs or fat (lowest first); protein or fiber (highest first).": (
        "name (nombre); calories, carbs o fat (de menos a más); protein o fiber (de más a menos).",
        (
            "name (nome); calories, carbs ou fat (do menor ao maior); protein ou fiber (do maior "
            "ao menor)."
        ),
    ),
    "Search the bundled exercise table.": (
        "Busca en la tabla de ejercicios incluida.",
        "Busca na tabela de exercícios incluída.",
    ),
    "Search the bundled exercise table; every match is listed.": (
        "Busca en la tabla de ejercicios incluida; se listan todos los resultados.",
        "Busca na tabela de exercícios incluída; todos os resultados são listados.",
    ),
    "Only this muscle group (back, chest, ...).": (
        "Solo este grupo muscular (back, chest, ...).",
        "Só este grupo muscular (back, chest, ...).",
    ),
    "Only this equipment (barbell, band, ...).": (
        "Solo este material (barbell, band, ...).",
        "Só este equipamento (barbell, band, ...).",
    ),
    # -- goals -------------------------------------------------------------------------------
    "Read the goals the Coach saved (per measure).": (
        "Lee los objetivos que guardó el Coach (por medida).",
        "Lê as metas que o Coach salvou (por medida).",
    ),
    "List the saved goals: per measure, its target and optional date.": (
        "Lista los objetivos guardados: por medida, su valor y, si la hay, su fecha.",
        "Lista as metas salvas: por medida, o valor e, se houver, a data.",
    ),
    # -- accounts, the evaluation, the engine, and the rules in the data commands --------
    "Accounts for the web app: who may sign in, and as whom.": (
        ("Cuentas de la app web: quién puede entrar y como quién."),
        ("Contas do app web: quem pode entrar e como quem."),
    ),
    "Add an account: a password asked twice (never echoed, stored only as an Argon2 "
    "hash), or with --link a one-time link whose opener chooses it.": (
        (
            "Añade una cuenta: la contraseña se pide dos veces (nunca se muestra y solo se "
            "guarda su hash Argon2), o con --link un enlace de un solo uso con el que quien "
            "lo abra la elige."
        ),
        (
            "Adiciona uma conta: a senha é pedida duas vezes (nunca aparece na tela e só o "
            "hash Argon2 é armazenado), ou com --link um link de uso único com o qual quem o "
            "abrir escolhe a senha."
        ),
    ),
    "Comma-separated: contract, plain, no-recovery, naive.": (
        ("Separados por comas: contract, plain, no-recovery, naive."),
        ("Separados por vírgulas: contract, plain, no-recovery, naive."),
    ),
    "Correct an existing measurement: given fields replace, --clear empties, the "
    "rest is kept; --new-date moves it (exit 1 when the date has no record). A new "
    "date after today is refused; a value far from the nearest other record is "
    "asked about (--yes: not).": (
        (
            "Corrige una medida existente: los campos indicados se sustituyen, --clear los "
            "vacía y el resto se conserva; --new-date la cambia de fecha (sale con 1 si esa "
            "fecha no tiene registro). Una fecha nueva posterior a hoy se rechaza; un valor "
            "muy lejos del registro más cercano se pregunta (--yes: no se pregunta)."
        ),
        (
            "Corrige uma medida existente: os campos informados são substituídos, --clear "
            "os esvazia e o resto é mantido; --new-date muda a data (sai com 1 se a data "
            "não tem registro). Uma data nova posterior a hoje é recusada; um valor muito "
            "distante do registro mais próximo é perguntado (--yes: não pergunta)."
        ),
    ),
    "Correct one logged food: its amount, the food, its meal or its date (exit 1 "
    "when there is no such item; a date after today is refused). Prints the meal it "
    "is now in.": (
        (
            "Corrige un alimento anotado: su cantidad, el alimento, la comida o la fecha "
            "(sale con 1 si no existe; una fecha posterior a hoy se rechaza). Muestra la "
            "comida en la que queda."
        ),
        (
            "Corrige um alimento registrado: a quantidade, o alimento, a refeição ou a data "
            "(sai com 1 se ele não existe; uma data posterior a hoje é recusada). Mostra a "
            "refeição em que ele fica."
        ),
    ),
    "Directory for the log, summary and charts.": (
        ("Carpeta para el registro, el resumen y los gráficos."),
        ("Pasta para o log, o resumo e os gráficos."),
    ),
    "List the suite's tasks, then exit.": (
        ("Lista las tareas de la batería y termina."),
        ("Lista as tarefas da bateria e sai."),
    ),
    "Load what 'gymnasia export' wrote into --user's data, all of it or nothing: a "
    "malformed file (or one naming an unknown food or exercise, or dated after "
    "today) changes nothing, and a user who already has data is refused unless "
    "--replace. Reads at most 64 MiB, and only a regular file or '-'.": (
        (
            "Carga lo que escribió 'gymnasia export' en los datos de --user, todo o nada: "
            "un archivo mal formado (o que nombra un alimento o ejercicio desconocido, o "
            "con fechas posteriores a hoy) no cambia nada, y un usuario que ya tiene datos "
            "se rechaza salvo con --replace. Lee como mucho 64 MiB, y solo un archivo "
            "normal o '-'."
        ),
        (
            "Carrega o que 'gymnasia export' escreveu nos dados de --user, tudo ou nada: um "
            "arquivo malformado (ou que cita um alimento ou exercício desconhecido, ou com "
            "datas posteriores a hoje) não muda nada, e um usuário que já tem dados é "
            "recusado, a não ser com --replace. Lê no máximo 64 MiB, e só um arquivo comum "
            "ou '-'."
        ),
    ),
    "Log an amount of one food in one meal (adds an item; never replaces); a date "
    "after today is refused.": (
        (
            "Anota una cantidad de un alimento en una comida (añade un elemento; nunca "
            "sustituye); una fecha posterior a hoy se rechaza."
        ),
        (
            "Registra uma quantidade de um alimento em uma refeição (adiciona um item; "
            "nunca substitui); uma data posterior a hoje é recusada."
        ),
    ),
    "Measure how the model recovers from tool failures, with and without the contract.": (
        (
            "Mide cómo se recupera el modelo de los fallos de las herramientas, con el "
            "contrato y sin él."
        ),
        ("Mede como o modelo se recupera das falhas das ferramentas, com o contrato e sem ele."),
    ),
    "Print a one-time sign-in link instead of asking.": (
        ("Muestra un enlace de acceso de un solo uso en lugar de preguntar."),
        ("Mostra um link de acesso de uso único em vez de perguntar."),
    ),
    "Read the password from stdin (scripts).": (
        ("Lee la contraseña de la entrada estándar (para scripts)."),
        ("Lê a senha da entrada padrão (para scripts)."),
    ),
    "Runs of each task in each arm.": (
        ("Ejecuciones de cada tarea en cada brazo."),
        ("Execuções de cada tarefa em cada braço."),
    ),
    "Save (upsert) a measurement directly: given fields replace, the others are "
    "kept. A date after today is refused; a value far from the nearest record is "
    "asked about (--yes: not).": (
        (
            "Guarda una medida directamente (crea o actualiza): los campos indicados se "
            "sustituyen y los demás se conservan. Una fecha posterior a hoy se rechaza; un "
            "valor muy lejos del registro más cercano se pregunta (--yes: no se pregunta)."
        ),
        (
            "Salva uma medida diretamente (cria ou atualiza): os campos informados são "
            "substituídos e os demais mantidos. Uma data posterior a hoje é recusada; um "
            "valor muito distante do registro mais próximo é perguntado (--yes: não "
            "pergunta)."
        ),
    ),
    "Save a value that is allowed but unlikely without asking.": (
        ("Guarda sin preguntar un valor permitido pero poco probable."),
        ("Salva sem perguntar um valor permitido mas pouco provável."),
    ),
    "Task ids or prefixes (measure.), comma-separated.": (
        ("Identificadores o prefijos de tareas (measure.), separados por comas."),
        ("Identificadores ou prefixos de tarefas (measure.), separados por vírgulas."),
    ),
    "The account's name (its --user).": (
        ("El nombre de la cuenta (su --user)."),
        ("O nome da conta (seu --user)."),
    ),
    "The accounts, one name a line.": (
        ("Las cuentas, un nombre por línea."),
        ("As contas, um nome por linha."),
    ),
    "The web app's address, for the link.": (
        ("La dirección de la app web, para el enlace."),
        ("O endereço do app web, para o link."),
    ),
    "Where turns run: 'journal' (built in) or 'dbos' (each turn a DBOS workflow, "
    "its state in the same PostgreSQL database as --db).": (
        (
            "Dónde se ejecutan los turnos: 'journal' (el propio) o 'dbos' (cada turno, un "
            "flujo de DBOS, con su estado en la misma base de datos PostgreSQL que --db)."
        ),
        (
            "Onde os turnos rodam: 'journal' (o próprio) ou 'dbos' (cada turno, um fluxo do "
            "DBOS, com o estado no mesmo banco de dados PostgreSQL de --db)."
        ),
    ),
    "Worker processes (more than 1: PostgreSQL only).": (
        ("Procesos de trabajo (más de 1: solo con PostgreSQL)."),
        ("Processos de trabalho (mais de 1: só com PostgreSQL)."),
    ),
    "interleaved (arms task by task) or by-arm (one arm's tasks, then the next: a "
    "local server's prompt cache stays warm).": (
        (
            "interleaved (los brazos tarea a tarea) o by-arm (las tareas de un brazo y "
            "luego las del siguiente: la caché de prompts de un servidor local se mantiene "
            "caliente)."
        ),
        (
            "interleaved (os braços tarefa a tarefa) ou by-arm (as tarefas de um braço e "
            "depois as do seguinte: o cache de prompts de um servidor local continua "
            "quente)."
        ),
    ),
}

_FIELD: Final[dict[Lang, str]] = {
    "es": "{label} en {unit} ({low}-{high}; 80,5 o 80.5).",
    "pt": "{label} em {unit} ({low}-{high}; 80,5 ou 80.5).",
    "en": "{label} in {unit} ({low}-{high}; 80.5 or 80,5).",
}


def field_help(name: str, lang: Lang = "en") -> str:
    """The help of measurement field ``name``'s option: ``Weight in kg (20-400; ...)``."""
    low, high = MEASUREMENT_LIMITS[name]
    unit = {"kg": "kg", "pct": "%", "cm": "cm"}[name.rsplit("_", 1)[1]]
    label = t(lang, f"offline_field_{name}")
    return _FIELD[lang].format(
        label=label[:1].upper() + label[1:], unit=unit, low=f"{low:g}", high=f"{high:g}"
    )


def _table() -> dict[str, dict[Lang, str]]:
    table: dict[str, dict[Lang, str]] = {
        english: {"es": es, "pt": pt, "en": english} for english, (es, pt) in _ES_PT.items()
    }
    for name in MEASUREMENT_FIELDS:
        table[field_help(name)] = {lang: field_help(name, lang) for lang in ("es", "pt", "en")}
    return table


_HELP: Final = register("help", _table())


def translate(text: str, lang: Lang) -> str | None:
    """``text`` (an English help text, however it is wrapped) in ``lang``; None when the
    catalogue has no entry for it."""
    key = " ".join(text.split())
    return entry("help", key, lang) if key in _HELP else None


def _translated(text: str, lang: Lang) -> str:
    return translate(text, lang) or text


def _words(text: str, lang: Lang) -> str:
    """Click's own words inside ``text`` (the usage line, ``[default: ...]``) in ``lang``."""
    for english in ("[OPTIONS]", "COMMAND [ARGS]...", "required", "default:", "env var:"):
        text = re.sub(rf"(?<![\w-]){re.escape(english)}", _translated(english, lang), text)
    return text


def _short(text: str, limit: int) -> str:
    """The first sentence of ``text`` within ``limit`` characters, as a command list shows it."""
    first = re.split(r"(?<=[.!?])\s", text, maxsplit=1)[0]
    return textwrap.shorten(first, max(limit, 10), placeholder="...")


def _described(text: str, lang: Lang, limit: int) -> str:
    """One row's description in ``lang``: its help, then its ``[...]`` notes. A command
    list's shortened help is matched by its start and shortened again."""
    help_text, gap, notes = text.partition("  [")
    found = translate(help_text, lang)
    if found is None:
        start = " ".join(help_text.removesuffix("...").split())
        full = next((key for key in _HELP if key.startswith(start)), None)
        found = _short(entry("help", full, lang), limit) if full else help_text
    return found + gap + _words(notes, lang)


def install(context_class: Any) -> None:
    """Make every help screen of ``context_class``'s commands use the session's language."""
    base = context_class.formatter_class
    if getattr(base, "localized", False):
        return

    class LocalizedHelpFormatter(base):  # type: ignore[misc,valid-type]
        localized = True

        def write_usage(self, prog: str, args: str = "", prefix: str | None = None) -> None:
            lang = SESSION.lang
            super().write_usage(prog, _words(args, lang), _translated("Usage:", lang) + " ")

        def write_heading(self, heading: str) -> None:
            super().write_heading(_translated(heading, SESSION.lang))

        def write_text(self, text: str) -> None:
            super().write_text(_translated(text, SESSION.lang))

        def write_dl(
            self, rows: Sequence[tuple[str, str]], col_max: int = 30, col_spacing: int = 2
        ) -> None:
            limit = self.width - 6 - max((len(term) for term, _ in rows), default=0)
            shown = [(term, _described(text, SESSION.lang, limit)) for term, text in rows]
            super().write_dl(shown, col_max, col_spacing)

    context_class.formatter_class = LocalizedHelpFormatter
